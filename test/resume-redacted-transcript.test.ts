import { cpSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";
import { gitRepo, sh, tempDir, treeState } from "./output-helpers.ts";

/**
 * transcript.json is redacted like every output. A resume from it sends the model what it was sent
 * before (requests are redacted the same way): the secret never reaches the file or the model; a
 * thinking block the redaction changed loses its signature instead of going back mismatched. A
 * patch that held a secret was redacted and cannot be applied: that resume is refused.
 */
const SECRET = "s3cr3t-value-0123456789";
const TASK = "model: anthropic:claude-haiku-5-5\nprompt: Look at the config.\ntools: [read, write]\n";

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function serve(turns: MockReply[]): Promise<MockLlm> {
  let next = 0;
  mock = await startMockLlm({ script: () => turns[next++] ?? { text: "Done." } });
  return mock;
}

function env(url: string): NodeJS.ProcessEnv {
  return { ...mockEnv(url), DEPLOY_API_TOKEN: SECRET };
}

function artifactOf(repo: string): string {
  const artifact = path.join(tempDir("agent-run-artifact-"), "previous");
  cpSync(path.join(repo, ".agent-run"), artifact, { recursive: true });
  return artifact;
}

function clone(repo: string): string {
  const dir = tempDir("agent-run-clone-");
  sh(dir, `git clone -q ${JSON.stringify(repo)} .`);
  return dir;
}

test("a secret read by a tool and thought by the model is *** in transcript.json and in the resumed requests", async () => {
  const { url } = await serve([
    { toolCalls: [{ name: "read", arguments: { path: "config.txt" } }] },
    {
      thinking: `The token is ${SECRET}; I must not repeat it.`,
      thinkingSignature: "c2lnbmF0dXJl",
      toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "config checked\n" } }],
    },
    { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
    { text: "Done." },
  ]);
  const repo = gitRepo({ "task.yml": TASK, "config.txt": `token=${SECRET}\n` });
  const first = await runCli([path.join(repo, "task.yml"), "--max-turns", "2"], { cwd: repo, env: env(url) });
  expect(first.code).toBe(3);
  const artifact = artifactOf(repo);
  const transcript = readFileSync(path.join(artifact, "transcript.json"), "utf8");
  expect(transcript).not.toContain(SECRET);
  const parsed = JSON.parse(transcript) as {
    redacted: boolean;
    messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
  };
  expect(parsed.redacted).toBe(true);
  const thinking = parsed.messages
    .flatMap((m) => (m.role === "assistant" ? m.content : []))
    .find((p) => p.type === "thinking");
  expect(thinking).toEqual({ type: "thinking", thinking: "The token is ***; I must not repeat it." });

  const checkout = clone(repo);
  const second = await runCli([path.join(checkout, "task.yml"), "--resume", artifact], {
    cwd: checkout,
    env: env(url),
  });
  expect(second.code).toBe(0);
  const resumed = JSON.stringify(mock?.requests[2]?.body);
  expect(resumed).not.toContain(SECRET);
  expect(resumed).toContain("token=***");
  // The unsigned thinking goes back as text, not as a thinking block with a stale signature.
  expect(resumed).toContain("<thinking>\\nThe token is ***");
  expect(resumed).not.toContain("c2lnbmF0dXJl");
}, 60_000);

test("a patch that held a secret cannot be resumed into a fresh checkout: exit 2, nothing changed", async () => {
  const { url } = await serve([
    { toolCalls: [{ name: "write", arguments: { path: "leak.txt", content: `${SECRET}\n` } }] },
    { toolCalls: [{ name: "read", arguments: { path: "leak.txt" } }] },
  ]);
  const repo = gitRepo({ "task.yml": TASK, "config.txt": "nothing\n" });
  const first = await runCli([path.join(repo, "task.yml"), "--max-turns", "1"], { cwd: repo, env: env(url) });
  expect(first.code).toBe(3);
  const artifact = artifactOf(repo);
  const checkout = clone(repo);
  const before = treeState(checkout);
  const second = await runCli([path.join(checkout, "task.yml"), "--resume", artifact], {
    cwd: checkout,
    env: env(url),
  });
  expect(second.code).toBe(2);
  expect(second.stderr).toContain("held a secret value and was redacted");
  expect(treeState(checkout)).toEqual(before);
}, 60_000);
