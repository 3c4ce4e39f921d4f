import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { startCli } from "./helpers/cli.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { processesWith } from "./helpers/trust.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";
import { gitRepo } from "./output-helpers.ts";

/**
 * Through the built CLI: the sandbox session (bwrap running the exec server) starts while the
 * model thinks about its first answer, so the first tool call does not wait for it; and a run
 * whose model then answered with text only ends it with nothing left behind.
 */
const TASK = "model: anthropic:claude-haiku-5-5\nprompt: Read the readme.\ntools: [read, bash]\n";
/** How long the mock holds its first reply back: the model thinking. */
const THINK_MS = 3000;

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** PIDs of the session's processes for the workspace `dir`: those whose command line holds the exec server. */
function sessionProcesses(dir: string): number[] {
  return processesWith(dir).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("createConfinedFs:");
    } catch {
      return false;
    }
  });
}

async function runThinking(
  first: MockReply,
): Promise<{ seenBeforeReply: boolean; code: number | null; dir: string }> {
  let firstRequestAt: number | undefined;
  mock = await startMockLlm({
    script: (index) => {
      if (index === 0) {
        firstRequestAt = Date.now();
        return { ...first, firstByteDelayMs: THINK_MS };
      }
      return { text: "Done." };
    },
  });
  const dir = gitRepo({ "task.yml": TASK, "README.md": "start\n" });
  const { done } = startCli([path.join(dir, "task.yml")], { cwd: dir, env: mockEnv(mock.url) });
  let seenBeforeReply = false;
  const watching = (async () => {
    for (let waited = 0; waited < 60_000; waited += 25) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      if (firstRequestAt === undefined) continue;
      // Only what is seen while the reply is still held back counts (with a margin for the poll).
      if (Date.now() > firstRequestAt + THINK_MS - 200) return;
      if (sessionProcesses(dir).length > 0) {
        seenBeforeReply = true;
        return;
      }
    }
  })();
  const result = await done;
  await watching;
  expect(result.stderr).not.toMatch(/warning|internal error/i);
  return { seenBeforeReply, code: result.code, dir };
}

describe.skipIf(NO_SANDBOX)("the sandbox session and a model that thinks", () => {
  test("the session is up before the first reply comes, and the tool call runs", async () => {
    const run = await runThinking({ toolCalls: [{ name: "read", arguments: { path: "README.md" } }] });
    expect(run.seenBeforeReply).toBe(true);
    expect(run.code).toBe(0);
    const events = readFileSync(path.join(run.dir, ".agent-run", "events.jsonl"), "utf8");
    expect(events).toContain('"toolName":"read"');
    expect(events).toContain('"text":"1\\tstart"');
    expect(sessionProcesses(run.dir)).toEqual([]);
  });

  test("a text-only answer after it started ends the session with the run: nothing left behind", async () => {
    const run = await runThinking({ text: "Nothing to do." });
    expect(run.seenBeforeReply).toBe(true);
    expect(run.code).toBe(0);
    expect(sessionProcesses(run.dir)).toEqual([]);
  });
});
