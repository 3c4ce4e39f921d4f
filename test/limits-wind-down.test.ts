import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { windDownNotice } from "../src/core/limits.ts";
import { emptyUsage } from "../src/core/usage.ts";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

/**
 * Near a limit the model is told once, in a user message of its own (not in a tool result, not in
 * the system prompt), what is left and to finish or wrap up; at the limit the run still ends with
 * exit 3, and the summary carries the model's wrap-up.
 */
let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const NOTICE = "this run is near its limit";

function usage(total: number, cost: number) {
  const u = emptyUsage();
  u.totalTokens = total;
  u.cost.total = cost;
  return u;
}

describe("windDownNotice", () => {
  const base = { turns: 1, usage: usage(0, 0), lastCallCost: 0, elapsedMs: 0 };
  test.for([
    ["turns at 80%", { maxTurns: 10, windDownAt: 0.8 }, { turns: 8 }, "8 of 10 turns used, 2 left"],
    ["turns below 80%", { maxTurns: 10, windDownAt: 0.8 }, { turns: 7 }, undefined],
    [
      "the last turn, whatever the fraction",
      { maxTurns: 3, windDownAt: 0.8 },
      { turns: 2 },
      "2 of 3 turns used, 1 left",
    ],
    ["tokens", { maxTokens: 1000, windDownAt: 0.8 }, { usage: usage(850, 0) }, "850 of 1000 tokens used"],
    ["cost", { maxCostUsd: 2, windDownAt: 0.8 }, { usage: usage(0, 1.7) }, "$1.70 of $2 spent"],
    [
      "time",
      { timeoutMs: 600_000, windDownAt: 0.8 },
      { elapsedMs: 500_000 },
      "500 s of 600 s elapsed, about 100 s left",
    ],
    ["no fraction set: never", { maxTurns: 10 }, { turns: 9 }, undefined],
  ] as const)("%s", ([, limits, state, expected]) => {
    const notice = windDownNotice(limits, { ...base, ...state });
    if (expected === undefined) expect(notice).toBeUndefined();
    else {
      expect(notice).toContain(expected);
      expect(notice).toContain("what is done and what is left");
    }
  });
});

describe.each([
  ["anthropic", "anthropic:claude-haiku-5-5"],
  ["responses", "openai:gpt-5.4-mini"],
  ["chat", "openai-compatible:qwen3:8b"],
] as const)("%s: max_turns 5", (_format, model) => {
  test("the model is told once, before its 5th turn, in a user message; exit 3 with its wrap-up in the summary", async () => {
    let turn = 0;
    mock = await startMockLlm({
      script: () => {
        const t = turn++;
        const text =
          t === 4 ? "Wrap-up: read notes 0 to 4; left to do: nothing else was asked." : `Reading note ${t}.`;
        return { text, toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] };
      },
    });
    const dir = await tempWorkspace({
      "task.yml": `model: ${model}\nprompt: Read the notes.\ntools: [read]\nlimits: { max_turns: 5 }\n`,
      "notes.txt": "a note\n",
    });
    const result = await runCli([path.join(dir, "task.yml")], { cwd: dir, env: mockEnv(mock.url) });
    expect(result.code).toBe(3);
    expect(mock.requests).toHaveLength(5);
    const told = mock.requests.map((r) => JSON.stringify(r.body).split(NOTICE).length - 1);
    expect(told).toEqual([0, 0, 0, 0, 1]);
    const last = mock.requests[4]?.body as Record<string, unknown>;
    // A user message of its own: a text part, not inside a tool result; not in the system prompt.
    expect(JSON.stringify(last.system ?? last.instructions ?? "")).not.toContain(NOTICE);
    const items = (last.messages ?? last.input) as Array<Record<string, unknown>>;
    const holder = items.find((m) => JSON.stringify(m).includes(NOTICE)) as Record<string, unknown>;
    expect(holder.role).toBe("user");
    const parts = Array.isArray(holder.content) ? (holder.content as Array<Record<string, unknown>>) : [];
    const part = parts.find((p) => JSON.stringify(p).includes(NOTICE));
    if (part) expect(["text", "input_text"]).toContain(part.type);
    else expect(holder.content).toContain(NOTICE);
    expect(JSON.stringify(holder.content)).toContain("4 of 5 turns used, 1 left");

    const summary = await readFile(path.join(dir, ".agent-run", "summary.md"), "utf8");
    expect(summary).toContain("Stopped by a limit");
    expect(summary).toContain("Wrap-up: read notes 0 to 4");
    const events = (await readFile(path.join(dir, ".agent-run", "events.jsonl"), "utf8")).trim().split("\n");
    expect(events.filter((line) => line.includes('"type":"notice"'))).toHaveLength(1);
  }, 30_000);
});

test("the time limit: told once when 80% of it has passed, then the timeout ends the run with exit 3", async () => {
  mock = await startMockLlm({
    script: () => ({
      text: "Reading.",
      toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
      firstByteDelayMs: 1250,
    }),
  });
  const dir = await tempWorkspace({
    "task.yml":
      "model: anthropic:claude-haiku-5-5\nprompt: Read the notes.\ntools: [read]\nlimits: { timeout: 8s }\n",
    "notes.txt": "a note\n",
  });
  const result = await runCli([path.join(dir, "task.yml")], { cwd: dir, env: mockEnv(mock.url) });
  expect(result.code).toBe(3);
  const told = mock.requests.map((r) => JSON.stringify(r.body).split(NOTICE).length - 1);
  const first = told.indexOf(1);
  expect(first).toBeGreaterThan(0);
  expect(told.slice(first).every((n) => n === 1)).toBe(true);
  expect(told.slice(0, first).every((n) => n === 0)).toBe(true);
  expect(JSON.stringify(mock.requests[first]?.body)).toMatch(/\d+ s of 8 s elapsed/);
}, 30_000);
