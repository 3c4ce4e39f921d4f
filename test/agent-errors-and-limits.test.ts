import { describe, expect, test } from "vitest";
import { z } from "zod";
import { Agent, type AgentEvent, type AnyAgentTool, type ToolResultMessage } from "../src/core/index.ts";
import { scriptedStream } from "./helpers/scripted-stream.ts";
import { echoTool, textOf } from "./helpers/tools.ts";

const model = { provider: "test", id: "m1" };

function results(agent: Agent): ToolResultMessage[] {
  return agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

describe("every tool failure becomes an error result the model sees", () => {
  test.for([
    ["unknown tool", { name: "nope", arguments: {} }, 'Tool "nope" does not exist. Available tools: echo.'],
    [
      "invalid arguments",
      { name: "echo", arguments: { text: 42 } },
      'Invalid arguments for tool "echo":\n- text: Invalid input: expected string, received number\nReceived: {"text":42}',
    ],
    [
      "unparseable JSON",
      { name: "echo", arguments: {}, parseError: "Unexpected end of JSON input" },
      'The arguments of tool call "echo" are not valid JSON (Unexpected end of JSON input). Send the call again with a complete JSON object.',
    ],
    ["a thrown error", { name: "boom", arguments: {} }, 'Tool "boom" failed: disk on fire'],
  ] as const)("%s", async ([, call, expected]) => {
    const boom: AnyAgentTool = {
      name: "boom",
      label: "Boom",
      description: "throws",
      parameters: z.object({}),
      async execute() {
        throw new Error("disk on fire");
      },
    };
    const tools = call.name === "boom" ? [boom] : [echoTool()];
    const { stream, snapshots } = scriptedStream([{ toolCalls: [call] }, { text: "recovered" }]);
    const agent = new Agent({ stream, model, tools });
    const outcome = await agent.prompt("go");
    expect(outcome.reason).toBe("stop");
    const [result] = results(agent);
    expect(result!.isError).toBe(true);
    expect(textOf(result!.content)).toBe(expected);
    expect(snapshots[1]!.messages).toContain(JSON.stringify(expected).slice(1, 30));
  });

  test("prepareArguments normalises before validation", async () => {
    const tool = {
      ...echoTool(),
      prepareArguments: (args: unknown) => ({ text: (args as { msg: string }).msg }),
    };
    const { stream } = scriptedStream([
      { toolCalls: [{ name: "echo", arguments: { msg: "old name" } }] },
      { text: "" },
    ]);
    const agent = new Agent({ stream, model, tools: [tool] });
    await agent.prompt("go");
    expect(textOf(results(agent)[0]!.content)).toBe("old name");
  });
});

describe("provider failures", () => {
  test("an error message ends the run with reason error", async () => {
    const { stream } = scriptedStream([{ stopReason: "error", errorMessage: "anthropic 529: overloaded" }]);
    const agent = new Agent({ stream, model });
    expect(await agent.prompt("go")).toMatchObject({ reason: "error", message: "anthropic 529: overloaded" });
  });

  test("a provider that throws still takes the error path", async () => {
    const agent = new Agent({
      model,
      // biome-ignore lint/correctness/useYield: the point is a stream that throws before yielding
      stream: async function* () {
        throw new Error("socket hang up");
      },
    });
    expect(await agent.prompt("go")).toMatchObject({ reason: "error", message: "socket hang up" });
  });
});

describe("abort", () => {
  test("abort reaches a running tool and ends the run as aborted", async () => {
    let toolSawAbort = false;
    const slow: AnyAgentTool = {
      name: "slow",
      label: "Slow",
      description: "waits for abort",
      parameters: z.object({}),
      execute: (_id, _p, signal) =>
        new Promise((_, reject) => {
          signal.addEventListener("abort", () => {
            toolSawAbort = true;
            reject(new Error("killed"));
          });
        }),
    };
    const { stream, requests } = scriptedStream([{ toolCalls: [{ name: "slow" }] }, { text: "never" }]);
    const agent = new Agent({ stream, model, tools: [slow] });
    agent.subscribe((e) => {
      if (e.type === "tool_execution_start") setTimeout(() => agent.abort(), 20);
    });
    const outcome = await agent.prompt("go");
    expect(outcome.reason).toBe("aborted");
    expect(toolSawAbort).toBe(true);
    expect(requests).toHaveLength(1);
    expect(textOf(results(agent)[0]!.content)).toBe('Tool "slow" was aborted.');
  });

  test("an external signal aborts a model call in flight", async () => {
    const { stream } = scriptedStream([{ text: "late", delayMs: 5000 }]);
    const agent = new Agent({ stream, model });
    const started = Date.now();
    const outcome = await agent.prompt("go", { signal: AbortSignal.timeout(50) });
    expect(outcome.reason).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe("limits", () => {
  const loop = () => ({
    toolCalls: [{ name: "echo", arguments: { text: "again" } }],
    usage: { input: 10, cost: 0.4 },
  });

  test("max turns stops before the next model call", async () => {
    const { stream, requests } = scriptedStream(Array.from({ length: 10 }, loop));
    const events: AgentEvent[] = [];
    const agent = new Agent({ stream, model, tools: [echoTool()], limits: { maxTurns: 3 } });
    agent.subscribe((e) => events.push(e));
    const outcome = await agent.prompt("go");
    expect(outcome).toMatchObject({ reason: "limit", limit: "turns", turns: 3 });
    expect(requests).toHaveLength(3);
    expect(events.at(-1)?.type).toBe("agent_end");
    expect(events.some((e) => e.type === "limit" && e.limit === "turns")).toBe(true);
  });

  test("max cost does not start a turn it cannot afford", async () => {
    const { stream, requests } = scriptedStream(Array.from({ length: 10 }, loop));
    const agent = new Agent({ stream, model, tools: [echoTool()], limits: { maxCostUsd: 1.0 } });
    const outcome = await agent.prompt("go");
    // 0.4 + 0.4 = 0.8 spent; a third turn at ~0.4 would reach 1.2.
    expect(outcome).toMatchObject({ reason: "limit", limit: "cost" });
    expect(requests).toHaveLength(2);
    expect(outcome.usage.cost.total).toBeLessThanOrEqual(1.0);
  });

  test("max tokens stops once the total is reached", async () => {
    const { stream, requests } = scriptedStream(Array.from({ length: 10 }, loop));
    const agent = new Agent({ stream, model, tools: [echoTool()], limits: { maxTokens: 25 } });
    expect(await agent.prompt("go")).toMatchObject({ reason: "limit", limit: "tokens" });
    expect(requests).toHaveLength(3);
  });
});
