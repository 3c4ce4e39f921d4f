import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AfterToolCallContext, AgentToolResult, AssistantMessage, Usage } from "../src/core/index.ts";
import { emptyUsage } from "../src/core/index.ts";
import { createHooks, HOOK_OUTPUT_MAX_BYTES, type HookEvent } from "../src/hooks/index.ts";
import { parseTask } from "../src/spec/index.ts";

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), "hooks-after-"));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const message: AssistantMessage = {
  role: "assistant",
  content: [],
  provider: "anthropic",
  model: "m",
  usage: emptyUsage(),
  stopReason: "toolUse",
  timestamp: 0,
};

function setup(hooks: string, cost: number | null = 0) {
  const task = parseTask(
    `model: anthropic:claude-sonnet-4-5\nprompt: go\ntools: [bash, edit]\nhooks:\n${hooks}`,
    path.join(workspace, "t.yml"),
    { env: {} },
  );
  const events: HookEvent[] = [];
  const made = createHooks(task, {
    workspace,
    env: { PATH: process.env.PATH },
    emit: (e) => events.push(e),
    getTurn: () => 1,
    getCost: () => cost,
  });
  const runAfter = (args: Record<string, unknown>, result: AgentToolResult, isError = false) => {
    const ctx: AfterToolCallContext = {
      assistantMessage: message,
      toolCall: { type: "toolCall", id: "c1", name: "bash", arguments: args },
      args,
      result,
      isError,
      context: { systemPrompt: "", messages: [], tools: [] },
    };
    return made.afterToolCall!(ctx, new AbortController().signal);
  };
  return { made, runAfter, events };
}

const ok: AgentToolResult = { content: [{ type: "text", text: "exit 0" }], details: {} };

describe("after_tool_call command hooks", () => {
  test("stdout JSON can replace the content, set is_error and terminate", async () => {
    const { runAfter } = setup(
      `  after_tool_call:\n    - run: >-\n        cat >/dev/null; echo '{"content": "replaced", "is_error": true, "terminate": true}'\n`,
    );
    expect(await runAfter({ command: "ls" }, ok)).toEqual({
      content: [{ type: "text", text: "replaced" }],
      isError: true,
      terminate: true,
    });
  });

  test("the hook sees the call and its result on stdin; a silent exit 0 adds nothing", async () => {
    const { runAfter } = setup(`  after_tool_call:\n    - run: cat > after-stdin.json\n`);
    expect(await runAfter({ command: "ls" }, ok)).toBeUndefined();
    expect(JSON.parse(await readFile(path.join(workspace, "after-stdin.json"), "utf8"))).toEqual({
      hook: "after_tool_call",
      tool: "bash",
      arguments: { command: "ls" },
      tool_call_id: "c1",
      turn: 1,
      workspace,
      result: { content: "exit 0", is_error: false },
    });
  });

  test("huge output is bounded before it reaches the model, and the cut is said", async () => {
    const { runAfter, events } = setup(`  after_tool_call:\n    - run: seq 1 2000000; exit 1\n`);
    const patch = await runAfter({ command: "ls" }, ok);
    const added = patch?.content?.[1];
    expect(added?.type).toBe("text");
    const text = added?.type === "text" ? added.text : "";
    expect(text.startsWith("[after_tool_call `seq 1 2000000; exit 1` exited 1]\n1\n2\n3\n")).toBe(true);
    expect(text.endsWith("1999999\n2000000\n[14888896 bytes of hook output in total; only part shown]")).toBe(
      true,
    );
    expect(Buffer.byteLength(text)).toBeLessThan(HOOK_OUTPUT_MAX_BYTES + 400);
    expect(events.find((e) => e.type === "hook_end")).toMatchObject({
      outputTruncated: true,
      stdoutBytes: 14_888_896,
    });
  });

  test("a hook that times out is noted in the result and reported; the call stands", async () => {
    const { runAfter, events } = setup(`  after_tool_call:\n    - run: sleep 20\n      timeout: 500ms\n`);
    const patch = await runAfter({ command: "ls" }, ok);
    expect(patch).toEqual({
      content: [
        { type: "text", text: "exit 0" },
        { type: "text", text: "[after_tool_call `sleep 20` timed out after 500ms; its result is unknown]" },
      ],
    });
    expect(events.at(-1)).toMatchObject({ type: "hook_failed", message: "`sleep 20` timed out after 500ms" });
  });

  test("a hook command that is not found is a hook error, and the model is told", async () => {
    const { runAfter, events } = setup(`  after_tool_call:\n    - run: no-such-linter-xyz --fix\n`);
    const patch = await runAfter({ command: "ls" }, ok);
    const added = patch?.content?.[1];
    expect(added?.type === "text" && added.text).toMatch(
      /^\[after_tool_call `no-such-linter-xyz --fix` exited 127\]\n.*no-such-linter-xyz: command not found$/,
    );
    expect(events.at(-2)).toMatchObject({ type: "hook_end", outcome: "error", exitCode: 127 });
    expect(events.at(-1)).toMatchObject({
      type: "hook_failed",
      hook: "after_tool_call",
      message: expect.stringMatching(
        /^`no-such-linter-xyz --fix` could not run \(exit 127\): .*command not found$/,
      ),
    });
  });

  test("a failed tool call is left alone", async () => {
    const { runAfter, events } = setup(`  after_tool_call:\n    - run: echo ran\n`);
    expect(await runAfter({ command: "ls" }, ok, true)).toBeUndefined();
    expect(events).toEqual([]);
  });
});

describe("prepare_next_turn rules", () => {
  const usage = (total: number, costUnknown = false): Usage => ({
    ...emptyUsage(),
    cost: { input: 0, output: total, cacheRead: 0, cacheWrite: 0, total },
    ...(costUnknown && { costUnknown }),
  });
  const prepare = (
    hook: NonNullable<ReturnType<typeof setup>["made"]["prepareNextTurn"]>,
    turn: number,
    total: number,
  ) =>
    hook({
      message,
      toolResults: [],
      context: { systemPrompt: "", messages: [], tools: [] },
      newMessages: [],
      turn,
      usage: usage(total),
    });

  test("cost_gte_usd switches once the cost so far reaches it, and only once", async () => {
    let spent = 0.2;
    const task = parseTask(
      "model: anthropic:claude-sonnet-4-5\nprompt: go\nhooks:\n  prepare_next_turn:\n    - when: { cost_gte_usd: 0.5 }\n      model: openai:gpt-5-mini\n",
      "t.yml",
    );
    const hooks = createHooks(task, {
      workspace,
      env: {},
      emit: () => {},
      getTurn: () => 1,
      getCost: () => spent,
    });
    expect(await prepare(hooks.prepareNextTurn!, 1, 0)).toBeUndefined();
    spent = 0.5;
    expect(await prepare(hooks.prepareNextTurn!, 2, 0)).toEqual({
      model: { provider: "openai", id: "gpt-5-mini" },
      reason: "turn 3, $0.5000 spent",
      rule: 0,
    });
    expect(await prepare(hooks.prepareNextTurn!, 3, 0)).toBeUndefined();
  });

  test("an unknown cost never satisfies cost_gte_usd", async () => {
    const task = parseTask(
      "model: anthropic:claude-sonnet-4-5\nprompt: go\nhooks:\n  prepare_next_turn:\n    - when: { cost_gte_usd: 0 }\n      thinking: high\n",
      "t.yml",
    );
    const hooks = createHooks(task, {
      workspace,
      env: {},
      emit: () => {},
      getTurn: () => 1,
      getCost: () => null,
    });
    const hook = hooks.prepareNextTurn!;
    const result = await hook({
      message,
      toolResults: [],
      context: { systemPrompt: "", messages: [], tools: [] },
      newMessages: [],
      turn: 5,
      usage: usage(0, true),
    });
    expect(result).toBeUndefined();
  });
});
