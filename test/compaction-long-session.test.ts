import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import {
  editedFiles,
  lastLine,
  longSessionScript,
  marker,
  writeSessionFiles,
} from "./helpers/long-session.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, type RecordedRequest, startMockLlm } from "./mock-llm/server.ts";

/**
 * Issue 14's long session: 100 turns, each reading a different 20 KB file and editing now and
 * then, on a model with a 32k window, through the built CLI on each wire format. The mock counts
 * the prompt's tokens its own way and refuses what does not fit, as the real APIs do.
 */
const WINDOW = 32_000;
const FORMATS = [
  ["anthropic", `{ provider: anthropic, id: claude-haiku-5-5, context_window: ${WINDOW} }`],
  ["responses", `{ provider: openai, id: gpt-5.4-mini, context_window: ${WINDOW} }`],
  ["chat", `{ provider: openai-compatible, id: "qwen3:8b", context_window: ${WINDOW} }`],
] as const;

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

interface EventLine {
  type: string;
  reason?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  resultsPruned?: number;
}

describe.each(FORMATS)("%s: 100 turns of 20 KB reads on a 32k-token model", (_format, model) => {
  test("completes with every edit in the patch, each request within the window, the latest result whole", async () => {
    const session = { turns: 100, editEvery: 10 };
    const runRequests: RecordedRequest[] = [];
    mock = await startMockLlm({ script: longSessionScript(session, runRequests), contextWindow: WINDOW });
    const dir = await tempWorkspace({
      "task.yml": `model: ${model}\nprompt: Read every file in docs/ and mark the edited ones.\ntools: [read, edit]\nlimits: { max_turns: 200 }\n`,
    });
    await writeSessionFiles(dir, session);
    const result = await runCli([path.join(dir, "task.yml")], { cwd: dir, env: mockEnv(mock.url) });
    expect(result.stderr).toContain("success · 101 turns");
    expect(result.code).toBe(0);

    const patch = await readFile(path.join(dir, ".agent-run", "patch.diff"), "utf8");
    const edited = editedFiles(session);
    expect(edited).toHaveLength(10);
    for (const i of edited) expect(patch).toContain(`+${marker(i).after}`);

    // Nothing was ever refused: the runner compacted before the window was reached.
    expect(mock.requests.filter((r) => r.overflowed)).toEqual([]);
    for (const request of mock.requests) expect(request.promptTokens).toBeLessThanOrEqual(WINDOW);
    // Every request carries the result of the turn before it whole, last.
    runRequests.slice(1, session.turns + 1).forEach((request, t) => {
      const conversation = JSON.stringify(request.body.messages ?? request.body.input);
      expect(conversation.lastIndexOf(lastLine(t))).toBeGreaterThan(conversation.length - 1500);
    });

    const events = (await readFile(path.join(dir, ".agent-run", "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as EventLine);
    const compactions = events.filter((e) => e.type === "compaction");
    expect(compactions.length).toBeGreaterThan(10);
    for (const c of compactions) {
      expect(c.reason).toBe("threshold");
      expect(c.tokensAfter).toBeLessThan(c.tokensBefore ?? 0);
    }
    const usage = JSON.parse(await readFile(path.join(dir, ".agent-run", "usage.json"), "utf8")) as {
      compactions?: number;
    };
    expect(usage.compactions).toBe(compactions.length);
    const summary = await readFile(path.join(dir, ".agent-run", "summary.md"), "utf8");
    expect(summary).toContain(`compacted ${compactions.length} times`);
  }, 120_000);
});
