import { describe, expect, test } from "vitest";
import { Agent, type AgentEvent, type ToolResultMessage } from "../src/core/index.ts";
import { scriptedStream } from "./helpers/scripted-stream.ts";
import { echoTool, textOf } from "./helpers/tools.ts";

const model = { provider: "test", id: "m1" };

function lastToolResult(agent: Agent): ToolResultMessage {
  return agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult").at(-1)!;
}

describe("beforeToolCall", () => {
  test("a blocked call is not executed and the model sees the reason", async () => {
    let executed = 0;
    const tool = echoTool("write");
    const original = tool.execute;
    tool.execute = (...args) => {
      executed++;
      return original(...args);
    };
    const { stream, snapshots } = scriptedStream([
      { toolCalls: [{ name: "write", arguments: { text: "package-lock.json" } }] },
      { text: "ok" },
    ]);
    const events: AgentEvent[] = [];
    const agent = new Agent({
      stream,
      model,
      tools: [tool],
      beforeToolCall: ({ args }) =>
        (args as { text: string }).text.endsWith(".json")
          ? { block: true, reason: "lock files are generated" }
          : undefined,
    });
    agent.subscribe((e) => events.push(e));
    await agent.prompt("go");
    expect(executed).toBe(0);
    const result = lastToolResult(agent);
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toBe("Tool call blocked: lock files are generated");
    expect(snapshots[1]!.messages).toContain("lock files are generated");
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end?.type === "tool_execution_end" && end.blocked).toBe(true);
    expect(events.some((e) => e.type === "hook_decision" && e.decision === "block")).toBe(true);
  });

  test("a hook that throws blocks the call (fails closed)", async () => {
    const { stream } = scriptedStream([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({
      stream,
      model,
      tools: [echoTool()],
      beforeToolCall: () => {
        throw new Error("guard crashed");
      },
    });
    await agent.prompt("go");
    expect(textOf(lastToolResult(agent).content)).toContain("before_tool_call hook failed: guard crashed");
  });
});

describe("afterToolCall", () => {
  test("patches content, isError and terminate", async () => {
    const { stream, requests } = scriptedStream([
      { toolCalls: [{ name: "echo", arguments: { text: "raw" } }] },
      { text: "never" },
    ]);
    const agent = new Agent({
      stream,
      model,
      tools: [echoTool()],
      afterToolCall: ({ result }) => ({
        content: [...result.content, { type: "text", text: " +lint output" }],
        isError: true,
        terminate: true,
      }),
    });
    const outcome = await agent.prompt("go");
    const result = lastToolResult(agent);
    expect(textOf(result.content)).toBe("raw +lint output");
    expect(result.isError).toBe(true);
    expect(outcome.reason).toBe("terminate");
    expect(requests).toHaveLength(1);
  });
});

describe("prepareNextTurn", () => {
  test("switches model and thinking level for the next request", async () => {
    const { stream, snapshots } = scriptedStream([
      { toolCalls: [{ name: "echo", arguments: { text: "1" } }] },
      { toolCalls: [{ name: "echo", arguments: { text: "2" } }] },
      { text: "done" },
    ]);
    const seen: number[] = [];
    const agent = new Agent({
      stream,
      model,
      thinkingLevel: "high",
      tools: [echoTool()],
      prepareNextTurn: ({ turn, toolResults }) => {
        seen.push(turn, toolResults.length);
        return turn >= 2 ? { model: { provider: "test", id: "small" }, thinkingLevel: "low" } : undefined;
      },
    });
    await agent.prompt("go");
    expect(seen).toEqual([1, 1, 2, 1]);
    expect(snapshots.map((s) => `${s.model}/${s.thinking}`)).toEqual([
      "test:m1/high",
      "test:m1/high",
      "test:small/low",
    ]);
    expect(agent.state.model.id).toBe("small");
  });

  test("prepareNextTurnWithContext can replace the context after prepareNextTurn", async () => {
    const { stream, snapshots } = scriptedStream([
      { toolCalls: [{ name: "echo", arguments: { text: "big output" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      stream,
      model,
      systemPrompt: "sys",
      tools: [echoTool()],
      prepareNextTurn: () => ({ thinkingLevel: "minimal" }),
      prepareNextTurnWithContext: ({ context }) => ({
        context: { ...context, systemPrompt: "compacted", messages: context.messages.slice(0, 1) },
      }),
    });
    await agent.prompt("go");
    expect(snapshots[1]!.thinking).toBe("minimal");
    expect(JSON.parse(snapshots[1]!.messages)).toHaveLength(1);
    expect(agent.state.systemPrompt).toBe("compacted");
  });
});

describe("beforeStop", () => {
  test("sends the model back with the check's output, then passes", async () => {
    const { stream, snapshots } = scriptedStream([{ text: "finished?" }, { text: "now really" }]);
    const agent = new Agent({
      stream,
      model,
      beforeStop: ({ attempt }) => (attempt === 0 ? { continue: "lint still fails: 3 errors" } : undefined),
    });
    const outcome = await agent.prompt("go");
    expect(outcome.reason).toBe("stop");
    expect(outcome.turns).toBe(2);
    expect(snapshots[1]!.messages).toContain("lint still fails: 3 errors");
  });

  test("a failing verdict ends the run as a failure", async () => {
    const { stream } = scriptedStream([{ text: "done" }]);
    const agent = new Agent({ stream, model, beforeStop: () => ({ fail: "npm run lint still failing" }) });
    const outcome = await agent.prompt("go");
    expect(outcome).toMatchObject({ reason: "failure", message: "npm run lint still failing" });
  });
});

describe("a hook that throws", () => {
  test("prepareNextTurn throwing ends the run with reason error, prompt() still resolves", async () => {
    const { stream } = scriptedStream([
      { toolCalls: [{ name: "echo", arguments: { text: "1" } }] },
      { text: "never" },
    ]);
    const agent = new Agent({
      stream,
      model,
      tools: [echoTool()],
      prepareNextTurn: () => {
        throw new Error("rule table broken");
      },
    });
    await expect(agent.prompt("go")).resolves.toMatchObject({
      reason: "error",
      message: "prepareNextTurn hook failed: rule table broken",
    });
  });
});
