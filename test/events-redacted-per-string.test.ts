/**
 * events.jsonl is redacted string by string before it is serialised (src/output/events-writer.ts),
 * and the redactor remembers its answers (src/output/redact.ts). Redacting the serialised line
 * missed a token of a known shape right after a line break or a tab: JSON writes those as `\n` and
 * `\t`, and the letter before the token made it look like the middle of a word. Through the built
 * CLI too: a file the model reads with such tokens shows none of them in any output.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { createEventsWriter } from "../src/output/events-writer.ts";
import { createRedactor } from "../src/output/redact.ts";
import { filesUnder } from "./helpers/canaries.ts";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";
import { tempDir } from "./output-helpers.ts";

// Shapes the runner was never told about (token-shapes.ts), each unlike any other.
const TOKENS = [
  `ghp_${"Ab1".repeat(12)}`,
  `sk-ant-api03-${"Zy9".repeat(8)}`,
  "AKIAQWERTYUIOP123456",
  `xoxb-${"4ab".repeat(8)}`,
];
const PIN = "31415926";

/** Each token where JSON escapes the character before it: at a line's start, after a tab, a CR. */
const FILE = TOKENS.map((token, i) => `line ${i}:\n${token}\n\t${token}\r\n${token}`).join("\n");

function writeEvents(events: object[], env: Record<string, string> = {}): string {
  const dir = tempDir();
  const file = path.join(dir, "events.jsonl");
  const writer = createEventsWriter(file, { redact: createRedactor({ env }).redact });
  for (const event of events) writer.write(event);
  void writer.close();
  return readFileSync(file, "utf8");
}

describe("the events writer", () => {
  test("a token after a line break, a tab or a CR is redacted", () => {
    const text = writeEvents([
      { type: "tool_execution_end", result: { content: [{ type: "text", text: FILE }] } },
    ]);
    for (const token of TOKENS) expect(text).not.toContain(token);
    expect(JSON.parse(text).result.content[0].text).toBe(
      TOKENS.map((_, i) => `line ${i}:\n***\n\t***\r\n***`).join("\n"),
    );
  });

  test("a secret in a key, in a number, in an error: redacted, and every line still JSON", () => {
    const circular: Record<string, unknown> = { name: "loop" };
    circular.self = circular;
    const text = writeEvents(
      [
        { type: "a", details: { [`key ${PIN}`]: PIN, pin: Number(PIN), big: BigInt(PIN) } },
        { type: "b", error: new Error(`failed with ${PIN}`), circular },
      ],
      { DB_PASSWORD: PIN },
    );
    expect(text).not.toContain(PIN);
    const [first, second] = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(first.details).toEqual({ "key ***": "***", pin: "***", big: "***" });
    expect(second.error.message).toBe("failed with ***");
    expect(second.circular).toEqual({ name: "loop", self: "[Circular]" });
  });

  test("a cycle through an error's parents is cut; an event that cannot be serialised says so", () => {
    const root: Record<string, unknown> = { type: "loop" };
    root.inner = { error: new Error(`boom ${PIN}`), back: root };
    const broken = {
      type: "broken",
      get details(): never {
        throw new Error(`getter failed with ${PIN}`);
      },
    };
    const lines = writeEvents([root, broken, { type: "after" }], { DB_PASSWORD: PIN })
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({
      type: "loop",
      inner: { error: { message: "boom ***" }, back: "[Circular]" },
    });
    expect(lines[1]).toEqual({ type: "broken", unserialisable: "Error: getter failed with ***" });
    expect(lines[2]).toEqual({ type: "after" });
  });

  test("numbers and keys without a secret are written as they are", () => {
    const event = { type: "usage", turn: 3, usage: { input: 123456789, cost: 0.25 }, nested: [{ ok: true }] };
    expect(JSON.parse(writeEvents([event], { DB_PASSWORD: PIN }))).toEqual(event);
  });
});

describe("the redactor's memory of its answers", () => {
  test("a secret added later is redacted from a text that was clean before", () => {
    const redactor = createRedactor({});
    const text = `the door opens with ${PIN}, twice: ${PIN}`;
    expect(redactor.redact(text)).toBe(text);
    redactor.add(PIN);
    expect(redactor.redact(text)).toBe("the door opens with ***, twice: ***");
    expect(redactor.redactDeep({ [text]: [text] })).toEqual({
      "the door opens with ***, twice: ***": ["the door opens with ***, twice: ***"],
    });
  });

  test.for([5, 12, 25, 60])(
    "a secret added later is redacted from a text seen %i long texts before, too",
    (count) => {
      const redactor = createRedactor({});
      const early = `pin ${PIN} early`;
      expect(redactor.redact(early)).toBe(early);
      // However far back the early answer is kept (the newer texts, the older ones, or gone).
      for (let i = 0; i < count; i++) redactor.redact(`text ${i} ${"y".repeat(100_000)}`);
      redactor.add(PIN);
      expect(redactor.redact(early)).toBe("pin *** early");
    },
  );
});

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

describe("through the built CLI", () => {
  test.for([
    ["text", []],
    ["--json", ["--json"]],
  ] as const)("tokens at the start of a line in a file read reach no output (%s)", async ([, flags]) => {
    mock = await startMockLlm({
      script: [{ toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] }, { text: "Done." }],
    });
    const workspace = await tempWorkspace({
      "task.yml": "model: anthropic:claude-haiku-5-5\nprompt: Read the notes.\ntools: [read]\n",
      "notes.txt": `${FILE}\n`,
    });
    const result = await runCli(["task.yml", ...flags], {
      cwd: workspace,
      env: { ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: "sk-ant-test-key" },
    });
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    const texts: Record<string, string> = { stdout: result.stdout, stderr: result.stderr };
    texts.requests = JSON.stringify(mock.requests.map((request) => request.body));
    for (const [file, text] of Object.entries(await filesUnder(path.join(workspace, ".agent-run"))))
      texts[file] = text;
    expect(Object.keys(texts)).toEqual(expect.arrayContaining(["events.jsonl", "transcript.json"]));
    for (const [where, text] of Object.entries(texts))
      for (const token of TOKENS) expect(text.includes(token), `${token} in ${where}`).toBe(false);
    // The model did read the file: its result is in the events, redacted.
    const events = (await readFile(path.join(workspace, ".agent-run", "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; toolName?: string });
    expect(events.some((event) => event.type === "tool_execution_end" && event.toolName === "read")).toBe(
      true,
    );
  });
});
