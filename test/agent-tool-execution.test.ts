import { describe, expect, test } from "vitest";
import { Agent, type AgentEvent, type ToolResultMessage } from "../src/core/index.ts";
import { scriptedStream } from "./helpers/scripted-stream.ts";
import { echoTool, sleepTool, type Timeline, textOf } from "./helpers/tools.ts";

const model = { provider: "test", id: "m1" };

function overlaps(a: { start: number; end: number }, b: { start: number; end: number }) {
  return a.start < b.end && b.start < a.end;
}

function toolResults(agent: Agent): ToolResultMessage[] {
  return agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

describe("tool execution modes", () => {
  test("parallel mode overlaps calls and keeps results in call order", async () => {
    const timeline: Timeline = { spans: [] };
    const { stream } = scriptedStream([
      {
        toolCalls: [
          { name: "sleep", arguments: { id: "a", ms: 300 } },
          { name: "sleep", arguments: { id: "b", ms: 20 } },
          { name: "sleep", arguments: { id: "c", ms: 150 } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({ stream, model, tools: [sleepTool(timeline)] });
    const outcome = await agent.prompt("go");
    expect(outcome.reason).toBe("stop");
    const [a, b, c] = ["a", "b", "c"].map((id) => timeline.spans.find((s) => s.id === id)!);
    expect(overlaps(a!, b!) && overlaps(a!, c!)).toBe(true);
    // b finished first, but results follow the order of the calls.
    expect(timeline.spans[0]!.id).toBe("b");
    expect(toolResults(agent).map((r) => textOf(r.content))).toEqual(["slept a", "slept b", "slept c"]);
  });

  test("sequential mode runs one call at a time", async () => {
    const timeline: Timeline = { spans: [] };
    const { stream } = scriptedStream([
      {
        toolCalls: [
          { name: "sleep", arguments: { id: "a", ms: 60 } },
          { name: "sleep", arguments: { id: "b", ms: 10 } },
          { name: "sleep", arguments: { id: "c", ms: 30 } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({ stream, model, tools: [sleepTool(timeline)], toolExecution: "sequential" });
    await agent.prompt("go");
    expect(timeline.spans.map((s) => s.id)).toEqual(["a", "b", "c"]);
    for (let i = 1; i < timeline.spans.length; i++) {
      expect(timeline.spans[i]!.start).toBeGreaterThanOrEqual(timeline.spans[i - 1]!.end);
    }
  });

  test("a tool marked sequential runs alone inside a parallel turn", async () => {
    const timeline: Timeline = { spans: [] };
    const { stream } = scriptedStream([
      {
        toolCalls: [
          { name: "sleep", arguments: { id: "p1", ms: 80 } },
          { name: "sleep", arguments: { id: "p2", ms: 80 } },
          { name: "solo", arguments: { id: "s", ms: 40 } },
          { name: "sleep", arguments: { id: "p3", ms: 40 } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({
      stream,
      model,
      tools: [sleepTool(timeline), sleepTool(timeline, { name: "solo", mode: "sequential" })],
    });
    await agent.prompt("go");
    const span = (id: string) => timeline.spans.find((s) => s.id === id)!;
    expect(overlaps(span("p1"), span("p2"))).toBe(true);
    expect(span("s").start).toBeGreaterThanOrEqual(Math.max(span("p1").end, span("p2").end));
    expect(span("p3").start).toBeGreaterThanOrEqual(span("s").end);
    expect(toolResults(agent).map((r) => r.toolCallId)).toEqual([
      "call_1_0",
      "call_1_1",
      "call_1_2",
      "call_1_3",
    ]);
  });

  test("a tool marked parallel runs concurrently even in sequential mode", async () => {
    const timeline: Timeline = { spans: [] };
    const { stream } = scriptedStream([
      {
        toolCalls: [
          { name: "fast", arguments: { id: "a", ms: 150 } },
          { name: "fast", arguments: { id: "b", ms: 150 } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({
      stream,
      model,
      toolExecution: "sequential",
      tools: [sleepTool(timeline, { name: "fast", mode: "parallel" })],
    });
    await agent.prompt("go");
    expect(overlaps(timeline.spans[0]!, timeline.spans[1]!)).toBe(true);
  });
});

describe("tool results", () => {
  test("onUpdate streams partial results as events", async () => {
    const { stream } = scriptedStream([{ toolCalls: [{ name: "progress", arguments: {} }] }, { text: "ok" }]);
    const events: AgentEvent[] = [];
    const agent = new Agent({
      stream,
      model,
      tools: [
        {
          name: "progress",
          label: "Progress",
          description: "reports progress",
          parameters: { type: "object", properties: {} },
          async execute(_id, _params, _signal, onUpdate) {
            onUpdate({ content: [{ type: "text", text: "half" }], details: {} });
            onUpdate({ content: [{ type: "text", text: "most" }], details: {} });
            return { content: [{ type: "text", text: "all" }], details: {} };
          },
        },
      ],
    });
    agent.subscribe((e) => events.push(e));
    await agent.prompt("go");
    const updates = events.filter((e) => e.type === "tool_execution_update");
    expect(
      updates.map((e) => (e.type === "tool_execution_update" ? textOf(e.partialResult.content) : "")),
    ).toEqual(["half", "most"]);
  });

  test("a result marked isError is an error result that keeps its details", async () => {
    const { stream } = scriptedStream([
      { toolCalls: [{ name: "flaky", arguments: { text: "partial" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ stream, model, tools: [echoTool("flaky", { isError: true })] });
    await agent.prompt("go");
    const [result] = toolResults(agent);
    expect(result).toMatchObject({ isError: true, details: { text: "partial" } });
  });

  test("addedToolNames makes a tool available from the next turn", async () => {
    const { stream, snapshots } = scriptedStream([
      { toolCalls: [{ name: "unlock", arguments: { text: "x" } }] },
      { toolCalls: [{ name: "secret", arguments: { text: "hi" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      stream,
      model,
      tools: [echoTool("unlock", { addedToolNames: ["secret"] })],
      availableTools: [echoTool("secret")],
    });
    await agent.prompt("go");
    expect(snapshots.map((s) => s.tools)).toEqual([["unlock"], ["unlock", "secret"], ["unlock", "secret"]]);
    const results = toolResults(agent);
    expect(results[0]!.addedToolNames).toEqual(["secret"]);
    expect(results[1]!.isError).toBe(false);
    expect(textOf(results[1]!.content)).toBe("hi");
  });

  test("terminate ends the run after the current turn", async () => {
    const { stream, requests } = scriptedStream([
      {
        toolCalls: [
          { name: "finish", arguments: { text: "bye" } },
          { name: "echo", arguments: { text: "still runs" } },
        ],
      },
      { text: "never asked" },
    ]);
    const agent = new Agent({ stream, model, tools: [echoTool("finish", { terminate: true }), echoTool()] });
    const outcome = await agent.prompt("go");
    expect(outcome.reason).toBe("terminate");
    expect(requests).toHaveLength(1);
    expect(toolResults(agent).map((r) => textOf(r.content))).toEqual(["bye", "still runs"]);
  });

  test("usage totals add every model call and tool-reported usage", async () => {
    const toolUsage = {
      input: 5,
      output: 7,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 12,
      cost: { input: 0, output: 0.5, cacheRead: 0, cacheWrite: 0, total: 0.5 },
    };
    const { stream } = scriptedStream([
      {
        toolCalls: [{ name: "sub", arguments: { text: "x" } }],
        usage: { input: 100, output: 10, cost: 0.25 },
      },
      { text: "done", usage: { input: 200, output: 20, cacheRead: 50, cost: 0.125 } },
    ]);
    const agent = new Agent({ stream, model, tools: [echoTool("sub", { usage: toolUsage })] });
    const outcome = await agent.prompt("go");
    expect(outcome.usage.input).toBe(305);
    expect(outcome.usage.output).toBe(37);
    expect(outcome.usage.cacheRead).toBe(50);
    expect(outcome.usage.totalTokens).toBe(110 + 270 + 12);
    expect(outcome.usage.cost.total).toBeCloseTo(0.875);
    expect(agent.state.usage.cost.total).toBeCloseTo(0.875);
    expect(toolResults(agent)[0]!.usage).toEqual(toolUsage);
  });
});
