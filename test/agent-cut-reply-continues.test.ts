import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { CUT_OFF_MESSAGE } from "../src/core/agent-loop.ts";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

/**
 * A reply cut by the output-token limit with no tool calls (Anthropic `max_tokens`, Responses
 * `incomplete` for max_output_tokens, Chat `length`) is not the model stopping: the run goes on
 * with a message asking it to continue, a few times at most; it never ends as a success.
 */
const FORMATS = [
  ["anthropic", "anthropic:claude-haiku-5-5"],
  ["responses", "openai:gpt-5.4-mini"],
  ["chat", "openai-compatible:qwen3:8b"],
] as const;

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const CUT: MockReply = { text: "The answer, in full, is that the", stop: "length" };

async function runScript(model: string, turns: MockReply[]) {
  let next = 0;
  mock = await startMockLlm({ script: () => turns[next++] ?? { text: "Done." } });
  const dir = await tempWorkspace({ "task.yml": `model: ${model}\nprompt: Explain.\ntools: [read]\n` });
  const result = await runCli([path.join(dir, "task.yml")], { cwd: dir, env: mockEnv(mock.url) });
  const usage = JSON.parse(await readFile(path.join(dir, ".agent-run", "usage.json"), "utf8")) as Record<
    string,
    unknown
  >;
  const summary = await readFile(path.join(dir, ".agent-run", "summary.md"), "utf8");
  return { result, usage, summary, requests: mock.requests };
}

describe.each(FORMATS)("%s", (_format, model) => {
  test("a cut reply is continued: the next request asks for the rest, and the run ends when the model does", async () => {
    const r = await runScript(model, [CUT, { text: "rest of the answer. Done." }]);
    expect(r.result.code).toBe(0);
    expect(r.requests).toHaveLength(2);
    expect(JSON.stringify(r.requests[0]?.body)).not.toContain(CUT_OFF_MESSAGE);
    expect(JSON.stringify(r.requests[1]?.body)).toContain(CUT_OFF_MESSAGE);
    expect(JSON.stringify(r.requests[1]?.body)).toContain("The answer, in full, is that the");
  }, 30_000);

  test("cut again and again: after 3 requests to continue, the run fails instead of passing as done", async () => {
    const r = await runScript(model, [CUT, CUT, CUT, CUT, { text: "never reached" }]);
    expect(r.result.code).toBe(1);
    expect(r.requests).toHaveLength(4);
    expect(r.usage.conclusion).toBe("failure");
    expect(r.summary).toContain("cut off by the output-token limit 4 times in a row");
  }, 30_000);
});
