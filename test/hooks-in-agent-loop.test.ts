import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { Agent, type AgentEvent, type AgentTool } from "../src/core/index.ts";
import { createHooks, type HookEvent } from "../src/hooks/index.ts";
import { parseTask } from "../src/spec/index.ts";
import { scriptedStream } from "./helpers/scripted-stream.ts";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), "hooks-loop-"));
  await mkdir(path.join(workspace, "src"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** A real file writer confined to the workspace, standing in for the built-in write tool. */
function writeTool(): AgentTool<{ path: string; content: string }, object> {
  return {
    name: "write",
    label: "Write",
    description: "writes a file",
    parameters: z.object({ path: z.string(), content: z.string() }),
    async execute(_id, params) {
      await writeFile(path.join(workspace, params.path), params.content);
      return { content: [{ type: "text", text: `wrote ${params.path}` }], details: {} };
    },
  };
}

function run(spec: string, turns: Parameters<typeof scriptedStream>[0]) {
  const task = parseTask(spec, path.join(workspace, "task.yml"), { env: {} });
  const hookEvents: HookEvent[] = [];
  const agentEvents: AgentEvent[] = [];
  let turn = 0;
  const { stream, snapshots } = scriptedStream(turns);
  const agent = new Agent({
    stream,
    model: task.spec.model,
    tools: [writeTool()],
    ...createHooks(task, {
      workspace,
      env: { PATH: process.env.PATH },
      emit: (e) => hookEvents.push(e),
      getTurn: () => turn,
      getCost: () => 0,
    }),
  });
  agent.subscribe((e) => {
    if (e.type === "turn_start") turn = e.turn;
    agentEvents.push(e);
  });
  return { agent, snapshots, hookEvents, agentEvents };
}

const SPEC = `model: anthropic:claude-sonnet-4-5
prompt: fix src/a.js
tools: [write]
hooks:
  before_tool_call:
    - match: { tool: write, path: "*.lock" }
      block: lock files are generated
  after_tool_call:
    - match: { tool: write, path: "src/**" }
      run: sed -i 's/var /let /' {{ tool.path }} && echo fixed {{ tool.path }}
  prepare_next_turn:
    - when: { turn_gte: 3 }
      model: anthropic:claude-haiku-4-5
      thinking: low
  before_stop:
    - run: if grep -n TODO src/a.js; then exit 1; fi
      max_attempts: 3
`;

describe("spec hooks inside the agent loop", () => {
  test("block, after-edit fix, model switch and a before_stop retry, end to end", async () => {
    const { agent, snapshots, hookEvents, agentEvents } = run(SPEC, [
      { toolCalls: [{ name: "write", arguments: { path: "yarn.lock", content: "x" } }] },
      { toolCalls: [{ name: "write", arguments: { path: "src/a.js", content: "var x = 1; // TODO\n" } }] },
      { text: "done" },
      { toolCalls: [{ name: "write", arguments: { path: "src/a.js", content: "var x = 1;\n" } }] },
      { text: "done now" },
    ]);
    const outcome = await agent.prompt("go");
    expect(outcome.reason).toBe("stop");
    expect(await readFile(path.join(workspace, "src/a.js"), "utf8")).toBe("let x = 1;\n");
    await expect(readFile(path.join(workspace, "yarn.lock"))).rejects.toThrow();

    expect(snapshots[1]!.messages).toContain("Tool call blocked: lock files are generated");
    const afterFix = JSON.parse(snapshots[2]!.messages).at(-1);
    expect(afterFix.content.map((p: { text: string }) => p.text)).toEqual([
      "wrote src/a.js",
      "[after_tool_call `sed -i 's/var /let /' src/a.js && echo fixed src/a.js` exited 0]\nfixed src/a.js\n" +
        "[after_tool_call `sed -i 's/var /let /' src/a.js && echo fixed src/a.js` changed src/a.js; read it again before editing it]",
    ]);
    const sentBack = JSON.parse(snapshots[3]!.messages).at(-1);
    expect(sentBack.role).toBe("user");
    expect(sentBack.content).toBe(
      "The check `if grep -n TODO src/a.js; then exit 1; fi` failed (exit code 1). Fix what it reports, then finish (attempt 1 of 3).\n\n1:let x = 1; // TODO",
    );
    expect(snapshots.map((s) => `${s.model} ${s.thinking}`)).toEqual([
      "anthropic:claude-sonnet-4-5 off",
      "anthropic:claude-sonnet-4-5 off",
      "anthropic:claude-haiku-4-5 low",
      "anthropic:claude-haiku-4-5 low",
      "anthropic:claude-haiku-4-5 low",
    ]);
    expect(
      hookEvents
        .filter((e) => e.type === "hook_end")
        .map((e) => e.type === "hook_end" && `${e.hook}:${e.outcome}`),
    ).toEqual(["after_tool_call:output", "before_stop:fail", "after_tool_call:output", "before_stop:pass"]);
    // One event a decision, the hook point spelled as in the spec, the deciding rule named.
    const decisions = agentEvents.filter((e) => e.type === "hook_decision");
    expect(decisions.map((e) => e.type === "hook_decision" && `${e.hook}:${e.decision}`)).toEqual([
      "before_tool_call:block",
      "after_tool_call:patch",
      "prepare_next_turn:update",
      "before_stop:continue",
      "after_tool_call:patch",
    ]);
    expect(decisions[0]).toEqual({
      type: "hook_decision",
      hook: "before_tool_call",
      rule: 0,
      toolCallId: "call_1_0",
      toolName: "write",
      decision: "block",
      reason: "lock files are generated",
    });
    expect(decisions[2]).toEqual({
      type: "hook_decision",
      hook: "prepare_next_turn",
      rule: 0,
      decision: "update",
      model: "anthropic:claude-haiku-4-5",
      thinking: "low",
      reason: "turn 3, $0.0000 spent",
    });
    expect(decisions[3]).toMatchObject({ hook: "before_stop", decision: "continue", rule: 0 });
    expect(hookEvents.filter((e) => !["hook_start", "hook_end", "hook_failed"].includes(e.type))).toEqual([]);
  });

  test("a check still failing after max_attempts ends the run as a failure", async () => {
    const spec = `model: anthropic:claude-sonnet-4-5
prompt: go
tools: [write]
hooks:
  before_stop:
    - run: echo "3 problems"; exit 1
      max_attempts: 2
`;
    const { agent, hookEvents } = run(spec, [
      { text: "done" },
      { text: "still done" },
      { text: "never asked" },
    ]);
    const outcome = await agent.prompt("go");
    expect(outcome.reason).toBe("failure");
    expect(outcome.message).toBe('`echo "3 problems"; exit 1` still failing after 2 attempts');
    expect(outcome.turns).toBe(2);
    expect(hookEvents.at(-1)).toEqual({
      type: "hook_failed",
      hook: "before_stop",
      rule: 0,
      command: 'echo "3 problems"; exit 1',
      message: '`echo "3 problems"; exit 1` still failing after 2 attempts',
      output: "3 problems",
    });
  });
});
