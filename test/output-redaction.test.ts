import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { diffWorkspace } from "../src/output/diff.ts";
import { createEventsWriter } from "../src/output/events-writer.ts";
import { createRedactor, isCredentialName } from "../src/output/redact.ts";
import { disposeSnapshot, snapshotWorkspace } from "../src/output/snapshot.ts";
import { writeOutputs } from "../src/output/write-outputs.ts";
import { gitRepo, makeRecord, tempDir, writeFiles } from "./output-helpers.ts";

const API_KEY = "sk-ant-api03-PLANTED-secret-value-123";
const GH_TOKEN = "ghp_PlantedGithubToken0987654321";
const MASKED = 'masked "value" with\\backslash';

describe("createRedactor", () => {
  test.for([
    ["ANTHROPIC_API_KEY", true],
    ["GITHUB_TOKEN", true],
    ["ACTIONS_RUNTIME_TOKEN", true],
    ["ACTIONS_ID_TOKEN_REQUEST_URL", true],
    ["MY_SECRET_THING", true],
    ["DB_PASSWORD", true],
    ["npm_config_token", true],
    ["AWS_SECRET_ACCESS_KEY", true],
    ["NPM_AUTH", true],
    ["PATH", false],
    ["HOME", false],
    ["TOKENIZER_PATH", false],
  ] as const)("%s is a credential name: %s", ([name, expected]) => {
    expect(isCredentialName(name)).toBe(expected);
  });

  test("redacts credential values in their raw, JSON-escaped, URL-encoded and base64 forms", () => {
    const redactor = createRedactor({
      env: { ANTHROPIC_API_KEY: API_KEY, PATH: "/usr/bin:/bin" },
      extra: [MASKED],
    });
    const base64 = Buffer.from(API_KEY).toString("base64");
    const text = [
      `key=${API_KEY}`,
      JSON.stringify({ masked: MASKED }),
      `url?k=${encodeURIComponent(MASKED)}`,
      `b64 ${base64}`,
      "path /usr/bin:/bin",
    ].join("\n");
    expect(redactor.redact(text)).toBe(
      ["key=***", '{"masked":"***"}', "url?k=***", "b64 ***", "path /usr/bin:/bin"].join("\n"),
    );
  });

  test("ignores values shorter than 6 characters and empty ones", () => {
    const redactor = createRedactor({ env: { SHORT_TOKEN: "abc", EMPTY_TOKEN: "" } });
    expect(redactor.redact("abc abcdef")).toBe("abc abcdef");
  });

  test("add() covers values learnt later (::add-mask::), each line of a multi-line secret too", () => {
    const redactor = createRedactor({});
    redactor.add("-----BEGIN KEY-----\nAAAABBBBCCCC\n-----END KEY-----");
    expect(redactor.redact("line: AAAABBBBCCCC")).toBe("line: ***");
  });

  test("redactDeep copies nested values, keys included, and leaves the input alone", () => {
    const redactor = createRedactor({ extra: [GH_TOKEN] });
    const input = { a: [GH_TOKEN, 1, null], [GH_TOKEN]: { nested: `x ${GH_TOKEN}` }, n: 3 };
    expect(redactor.redactDeep(input)).toEqual({ a: ["***", 1, null], "***": { nested: "x ***" }, n: 3 });
    expect(input.a[0]).toBe(GH_TOKEN);
  });

  test("a 2 MB text with 200 secrets is redacted in one pass, well under a second", () => {
    const secrets = Array.from({ length: 200 }, (_, i) => `secret-${i}-${"x".repeat(20)}`);
    const redactor = createRedactor({ extra: secrets });
    const text = Array.from(
      { length: 20_000 },
      (_, i) => `line ${i} ${i % 100 === 0 ? secrets[i % 200] : "plain"} ${"y".repeat(80)}`,
    ).join("\n");
    const started = performance.now();
    const out = redactor.redact(text);
    const elapsed = performance.now() - started;
    expect(out).not.toContain("secret-");
    expect(elapsed).toBeLessThan(1000);
  });
});

test("planted secrets from env, files and model output reach none of the four outputs", async () => {
  const root = gitRepo({ "a.txt": "a\n" });
  const out = path.join(root, ".agent-run");
  const redactor = createRedactor({ env: { ANTHROPIC_API_KEY: API_KEY, GITHUB_TOKEN: GH_TOKEN } });
  redactor.add(MASKED);
  const events = createEventsWriter(path.join(out, "events.jsonl"), { redact: redactor.redact });
  const snapshot = await snapshotWorkspace(root, { exclude: [out] });

  events.write({ type: "message_end", message: { role: "assistant", text: `Using ${API_KEY} now` } });
  events.write({ type: "tool_execution_end", result: { output: `token: ${GH_TOKEN}\n${MASKED}` } });
  writeFiles(root, {
    "config.env": `ANTHROPIC_API_KEY=${API_KEY}\nTOKEN_B64=${Buffer.from(GH_TOKEN).toString("base64")}\n`,
  });
  const diff = await diffWorkspace(snapshot, root);
  await disposeSnapshot(snapshot);
  await events.close();

  await writeOutputs(out, {
    record: makeRecord({
      description: `Deploy with ${GH_TOKEN}`,
      reason: `provider said ${API_KEY} is invalid`,
      lastAssistantText: `Done. The key is ${API_KEY} and ${MASKED}.`,
      blocked: [{ tool: "bash", reason: "no curl", turn: 1, args: `curl -H "Authorization: ${GH_TOKEN}"` }],
      hookFailures: [{ hook: "before_stop", command: `echo ${API_KEY}`, message: JSON.stringify(MASKED) }],
      toolCalls: { bash: { calls: 1, errors: 0, blocked: 1, durationMs: 5 } },
    }),
    diff,
    redactor,
  });

  const files = fs.readdirSync(out).sort();
  expect(files).toEqual(["events.jsonl", "patch.diff", "summary.md", "usage.json"]);
  const forms = [
    API_KEY,
    GH_TOKEN,
    MASKED,
    JSON.stringify(MASKED).slice(1, -1),
    Buffer.from(GH_TOKEN).toString("base64"),
  ];
  for (const file of files) {
    const content = fs.readFileSync(path.join(out, file), "utf8");
    if (file !== "usage.json") expect(content).toContain("***");
    for (const form of forms) expect(content, `${file} leaks ${form}`).not.toContain(form);
  }
});

test("without a redactor the same outputs do contain the secret (the test above is not vacuous)", async () => {
  const out = tempDir();
  await writeOutputs(out, { record: makeRecord({ lastAssistantText: API_KEY }), diff: null });
  expect(fs.readFileSync(path.join(out, "summary.md"), "utf8")).toContain(API_KEY);
});
