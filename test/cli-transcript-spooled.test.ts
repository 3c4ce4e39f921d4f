import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";
import { gitRepo } from "./output-helpers.ts";

/**
 * A conversation past one batch of the transcript's spool (1 MiB, src/run/resume/transcript-spool.ts)
 * is written while the run goes on; through the built CLI, the transcript.json it ends with is the
 * whole conversation, redacted, with no temp file left beside it, and a later `--resume` reads it.
 */
const SECRET = "sk-ant-spooled-0123456789abcdef";
const TURNS = 30;
// 40 KB of 80-byte lines, under the read tool's bounds; the key appears in it once.
const FILE = `the key is ${SECRET}\n${`${"x".repeat(79)}\n`.repeat(500)}`;

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

describe("transcript.json of a long conversation", () => {
  test("is whole, redacted and resumable after being written during the run", async () => {
    let next = 0;
    mock = await startMockLlm({
      script: () =>
        next++ < TURNS
          ? { toolCalls: [{ name: "read", arguments: { path: "big.txt" } }] }
          : { text: "Done." },
    });
    const repo = gitRepo({
      "task.yml": "model: anthropic:claude-haiku-5-5\nprompt: Read big.txt again and again.\ntools: [read]\n",
      "big.txt": FILE,
    });
    const env = { ...mockEnv(mock.url), ANTHROPIC_API_KEY: SECRET };
    const first = await runCli([path.join(repo, "task.yml")], { cwd: repo, env });
    expect(first.stderr).not.toContain("transcript.json could not be written");
    expect(first.code).toBe(0);

    const outputs = path.join(repo, ".agent-run");
    expect(readdirSync(outputs).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    const text = readFileSync(path.join(outputs, "transcript.json"), "utf8");
    expect(text.length).toBeGreaterThan(TURNS * 40_000);
    expect(text).not.toContain(SECRET);
    const transcript = JSON.parse(text) as { messages: unknown[]; redacted: boolean; conclusion: string };
    expect(transcript.messages).toHaveLength(1 + 2 * TURNS + 1);
    expect(transcript.redacted).toBe(true);
    expect(transcript.conclusion).toBe("success");

    const resumed = await runCli([path.join(repo, "task.yml"), "--resume", outputs], { cwd: repo, env });
    expect(resumed.code).toBe(0);
    const request = mock.requests.at(-1)?.body as { messages: unknown[] };
    // The conversation, then the follow-up message.
    expect(request.messages).toHaveLength(1 + 2 * TURNS + 1 + 1);
  });
});
