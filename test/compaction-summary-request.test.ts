import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { SUMMARY_INSTRUCTION, SUMMARY_MARKER } from "../src/run/compaction/summary-request.ts";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { fileName, fileText, isSummaryRequest, lastLine, SUMMARY_TEXT } from "./helpers/long-session.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, type MockScript, type RecordedRequest, startMockLlm } from "./mock-llm/server.ts";

/**
 * When pruning old results is not enough (the model's own messages fill the window), older turns
 * are folded into a summary the model writes in a request of its own: no tools, the summarising
 * instruction last. The next request is then: the system prompt, the task prompt, the summary,
 * the turns kept, and the latest assistant message with all its tool results, verbatim and last.
 */
const WINDOW = 16_000;
const TASK = "Read every file in docs/ and think aloud about each.";
const FORMATS = [
  ["anthropic", `{ provider: anthropic, id: claude-haiku-5-5, context_window: ${WINDOW} }`],
  ["responses", `{ provider: openai, id: gpt-5.4-mini, context_window: ${WINDOW} }`],
  ["chat", `{ provider: openai-compatible, id: "qwen3:8b", context_window: ${WINDOW} }`],
] as const;
const TURNS = 24;

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** Turn t: 3 KB of the model thinking aloud and a read of file t (2 KB); then done. */
function chattyScript(): MockScript {
  let turn = 0;
  return (_i, request) => {
    if (isSummaryRequest(request)) return { text: SUMMARY_TEXT };
    const t = turn++;
    if (t >= TURNS) return { text: "Done." };
    return {
      text: `Turn ${t}. ${"I am weighing what the files say so far, one point after another. ".repeat(45)}`,
      toolCalls: [{ name: "read", arguments: { path: fileName(t) } }],
    };
  };
}

/** A request's conversation as (role, text) pairs, whatever the wire format; tool calls as "call <name>". */
function conversation(request: RecordedRequest): Array<{ role: string; text: string }> {
  const out: Array<{ role: string; text: string }> = [];
  const body = request.body as Record<string, unknown>;
  if (request.format === "anthropic") {
    for (const m of body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>) {
      for (const block of m.content) {
        if (block.type === "text") out.push({ role: m.role, text: String(block.text) });
        else if (block.type === "tool_use") out.push({ role: "call", text: String(block.name) });
        else if (block.type === "tool_result")
          out.push({ role: "result", text: JSON.stringify(block.content) });
      }
    }
  } else if (request.format === "responses") {
    for (const item of body.input as Array<Record<string, unknown>>) {
      if (item.type === "function_call") out.push({ role: "call", text: String(item.name) });
      else if (item.type === "function_call_output") out.push({ role: "result", text: String(item.output) });
      else if (typeof item.content === "string") out.push({ role: String(item.role), text: item.content });
      else
        for (const part of item.content as Array<{ text: string }>)
          out.push({ role: String(item.role), text: part.text });
    }
  } else {
    for (const m of body.messages as Array<Record<string, unknown>>) {
      if (m.role === "tool") out.push({ role: "result", text: String(m.content) });
      else if (m.role !== "system") {
        if (typeof m.content === "string") out.push({ role: String(m.role), text: m.content });
        for (const call of (m.tool_calls as Array<{ function: { name: string } }> | undefined) ?? [])
          out.push({ role: "call", text: call.function.name });
      }
    }
  }
  return out;
}

function systemPrompt(request: RecordedRequest): string {
  const body = request.body as Record<string, unknown>;
  if (request.format === "anthropic") return (body.system as Array<{ text: string }>)[0]?.text ?? "";
  if (request.format === "responses") return String(body.instructions ?? "");
  return String((body.messages as Array<{ role: string; content: string }>)[0]?.content ?? "");
}

describe.each(FORMATS)("%s", (_format, model) => {
  test("the summary is a request of its own, and the next request is task, summary, kept turns, latest turn last", async () => {
    mock = await startMockLlm({ script: chattyScript(), contextWindow: WINDOW });
    const dir = await tempWorkspace({ "task.yml": `model: ${model}\nprompt: ${TASK}\ntools: [read]\n` });
    await mkdir(path.join(dir, "docs"));
    for (let i = 0; i < TURNS; i++) await writeFile(path.join(dir, fileName(i)), fileText(i, 2048));
    const result = await runCli([path.join(dir, "task.yml")], { cwd: dir, env: mockEnv(mock.url) });
    expect(result.code).toBe(0);
    const summaries = mock.requests.filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThan(0);

    for (const request of summaries) {
      expect(request.body.tools).toBeUndefined();
      const turns = conversation(request);
      expect(turns).toHaveLength(1);
      expect(turns[0]?.role).toBe("user");
      expect(turns[0]?.text.startsWith(`<task>\n${TASK}\n</task>`)).toBe(true);
      expect(turns[0]?.text.endsWith(SUMMARY_INSTRUCTION)).toBe(true);
      expect(systemPrompt(request)).toContain("checkpoint summaries");
    }

    const after = mock.requests[(summaries[0]?.index ?? 0) + 1] as RecordedRequest;
    expect(isSummaryRequest(after)).toBe(false);
    expect(systemPrompt(after)).toContain("You are a coding agent running headless");
    const turns = conversation(after);
    expect(turns[0]).toEqual({ role: "user", text: TASK });
    expect(turns[1]?.role).toBe("user");
    expect(turns[1]?.text.startsWith(SUMMARY_MARKER)).toBe(true);
    expect(turns[1]?.text).toContain(SUMMARY_TEXT);
    expect(turns[2]?.role).toBe("assistant");
    // The latest turn: the model's message, its call and its result, whole and last.
    const [text, call, output] = turns.slice(-3);
    const latest = Number(/^Turn (\d+)\./.exec(text?.text ?? "")?.[1]);
    expect(text?.role).toBe("assistant");
    expect(call).toEqual({ role: "call", text: "read" });
    expect(output?.role).toBe("result");
    expect(output?.text).toContain(lastLine(latest));
    expect(output?.text).not.toContain("pruned");

    const events = (await readFile(path.join(dir, ".agent-run", "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; summarized?: boolean; turnsFolded?: number });
    const folded = events.filter((e) => e.type === "compaction" && e.summarized);
    expect(folded).toHaveLength(summaries.length);
    expect(folded[0]?.turnsFolded).toBeGreaterThan(0);
  }, 60_000);
});

test("a compacted run's transcript keeps its summary; resumed, the next summary request carries it as the previous one", async () => {
  mock = await startMockLlm({ script: chattyScript(), contextWindow: WINDOW });
  const model = FORMATS[0][1];
  const dir = await tempWorkspace({ "task.yml": `model: ${model}\nprompt: ${TASK}\ntools: [read]\n` });
  await mkdir(path.join(dir, "docs"));
  for (let i = 0; i < TURNS; i++) await writeFile(path.join(dir, fileName(i)), fileText(i, 2048));
  const first = await runCli([path.join(dir, "task.yml"), "--max-turns", "14"], {
    cwd: dir,
    env: mockEnv(mock.url),
  });
  expect(first.code).toBe(3);
  expect(mock.requests.filter(isSummaryRequest).length).toBeGreaterThan(0);
  const transcript = JSON.parse(await readFile(path.join(dir, ".agent-run", "transcript.json"), "utf8")) as {
    messages: Array<{ role: string; content: unknown }>;
  };
  expect(transcript.messages[0]).toMatchObject({ role: "user", content: TASK });
  expect(String(transcript.messages[1]?.content).startsWith(SUMMARY_MARKER)).toBe(true);

  const before = mock.requests.length;
  const second = await runCli([path.join(dir, "task.yml"), "--resume", ".agent-run"], {
    cwd: dir,
    env: mockEnv(mock.url),
  });
  expect(second.code).toBe(0);
  const resumed = mock.requests.slice(before);
  expect(JSON.stringify(conversation(resumed[0] as RecordedRequest)[1])).toContain(SUMMARY_MARKER);
  const summary = resumed.find(isSummaryRequest);
  expect(summary).toBeDefined();
  const prompt = conversation(summary as RecordedRequest)[0]?.text ?? "";
  expect(prompt).toContain(`<previous-summary>\n${SUMMARY_MARKER}`);
}, 60_000);
