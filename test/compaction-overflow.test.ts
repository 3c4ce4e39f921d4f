import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { editedFiles, longSessionScript, marker, writeSessionFiles } from "./helpers/long-session.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import type { ChatOverflowStyle } from "./mock-llm/context-window.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

/**
 * A provider's context-length refusal, in each wire format's real shape (Anthropic's 400 "prompt is
 * too long", the Responses API's `context_length_exceeded` error event, Chat Completions' 400 as
 * OpenAI, vLLM and llama.cpp's server send it), makes the runner compact and send the turn once
 * more, and the run goes on. The spec's window is wrong (larger than the server's) or unknown.
 */
const SERVER_WINDOW = 32_000;
const CASES: Array<[string, string, ChatOverflowStyle?]> = [
  [
    "anthropic, the spec's window too large",
    "{ provider: anthropic, id: claude-haiku-5-5, context_window: 1000000 }",
  ],
  [
    "responses, the spec's window too large",
    "{ provider: openai, id: gpt-5.4-mini, context_window: 1000000 }",
  ],
  ["chat as OpenAI, window unknown", `"openai-compatible:qwen3:8b"`, "openai"],
  ["chat as vLLM, window unknown", `"openai-compatible:qwen3:8b"`, "vllm"],
  ["chat as llama.cpp, window unknown", `"openai-compatible:qwen3:8b"`, "llamacpp"],
];

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

describe.each(CASES)("%s", (_name, model, chatOverflow) => {
  test("the refusal triggers a compaction and one retry of the turn; the run completes", async () => {
    const session = { turns: 30, editEvery: 10 };
    mock = await startMockLlm({
      script: longSessionScript(session),
      contextWindow: SERVER_WINDOW,
      ...(chatOverflow && { chatOverflow }),
    });
    const dir = await tempWorkspace({
      "task.yml": `model: ${model}\nprompt: Read every file in docs/.\ntools: [read, edit]\n`,
    });
    await writeSessionFiles(dir, session);
    const result = await runCli([path.join(dir, "task.yml")], { cwd: dir, env: mockEnv(mock.url) });
    expect(result.stderr).toContain("the provider said it was too long");
    expect(result.code).toBe(0);
    const patch = await readFile(path.join(dir, ".agent-run", "patch.diff"), "utf8");
    for (const i of editedFiles(session)) expect(patch).toContain(`+${marker(i).after}`);

    const refused = mock.requests.filter((r) => r.overflowed);
    expect(refused.length).toBeGreaterThan(0);
    // Each refusal is followed by a request that fits: one retry each, never two refusals in a row.
    for (const request of refused) {
      const next = mock.requests[request.index + 1];
      expect(next?.overflowed).toBeFalsy();
    }
    // Once a refusal taught the runner the server's window, it compacts in time.
    expect(refused.length).toBeLessThanOrEqual(2);
    const events = (await readFile(path.join(dir, ".agent-run", "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; reason?: string; windowSource?: string });
    const compactions = events.filter((e) => e.type === "compaction");
    expect(compactions.filter((c) => c.reason === "overflow")).toHaveLength(refused.length);
    expect(compactions.at(-1)?.windowSource).toBe("learned");
  }, 60_000);
});
