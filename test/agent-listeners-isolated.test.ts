import { afterEach, beforeEach, expect, test } from "vitest";
import { z } from "zod";
import { Agent, type AgentEvent, type AnyAgentTool } from "../src/core/index.ts";
import { scriptedStream } from "./helpers/scripted-stream.ts";
import { echoTool } from "./helpers/tools.ts";

const model = { provider: "test", id: "m1" };

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

function twoTurns() {
  return scriptedStream([{ toolCalls: [{ name: "echo", arguments: { text: "hi" } }] }, { text: "done" }]);
}

async function baseline(): Promise<string[]> {
  const agent = new Agent({ stream: twoTurns().stream, model, tools: [echoTool()] });
  const seen: string[] = [];
  agent.subscribe((event) => seen.push(event.type));
  await agent.prompt("go");
  return seen;
}

test.for([
  [
    "throws",
    () => {
      throw new Error("renderer broke");
    },
  ],
  [
    "returns a rejected promise",
    async () => {
      throw new Error("renderer broke");
    },
  ],
] as const)("a listener that %s is reported once and changes nothing", async ([, broken]) => {
  const expected = await baseline();
  const agent = new Agent({ stream: twoTurns().stream, model, tools: [echoTool()] });
  const seen: AgentEvent[] = [];
  agent.subscribe(broken);
  agent.subscribe((event) => seen.push(event));
  const outcome = await agent.prompt("go");
  await settle();

  expect(outcome).toMatchObject({ reason: "stop", turns: 2 });
  expect(unhandled).toEqual([]);
  const warnings = seen.filter((e) => e.type === "warning");
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({
    message: expect.stringMatching(/^an event listener failed on "agent_start" .*: renderer broke$/),
  });
  // Every other event arrived exactly as without the broken listener.
  expect(seen.filter((e) => e.type !== "warning").map((e) => e.type)).toEqual(expected);
});

test("a rejection after agent_end is not emitted as an event (and not unhandled)", async () => {
  const agent = new Agent({ stream: twoTurns().stream, model, tools: [echoTool()] });
  const seen: string[] = [];
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on("warning", onWarning);
  agent.subscribe(async (event) => {
    if (event.type === "agent_end") {
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error("late failure");
    }
  });
  agent.subscribe((event) => seen.push(event.type));
  await agent.prompt("go");
  await settle();
  process.off("warning", onWarning);
  expect(seen.at(-1)).toBe("agent_end");
  expect(unhandled).toEqual([]);
  expect(warnings).toEqual([expect.stringContaining('failed on "agent_end"')]);
});

test("tool progress after the tool ended is dropped; nothing is emitted after agent_end", async () => {
  let late: (() => void) | undefined;
  const chatty: AnyAgentTool = {
    name: "chatty",
    label: "Chatty",
    description: "keeps talking after it returned",
    parameters: z.object({}),
    async execute(_id, _params, _signal, onUpdate) {
      onUpdate({ content: [{ type: "text", text: "working" }], details: {} });
      // A child process whose output keeps arriving after the tool resolved.
      setTimeout(() => onUpdate({ content: [{ type: "text", text: "after end" }], details: {} }), 5);
      late = () => onUpdate({ content: [{ type: "text", text: "after agent_end" }], details: {} });
      return { content: [{ type: "text", text: "ok" }], details: {} };
    },
  };
  const { stream } = scriptedStream([
    { toolCalls: [{ name: "chatty", arguments: {} }] },
    { text: "done", delayMs: 30 },
  ]);
  const agent = new Agent({ stream, model, tools: [chatty] });
  const seen: AgentEvent[] = [];
  agent.subscribe((event) => seen.push(event));
  await agent.prompt("go");
  late?.();
  await settle();

  const types = seen.map((e) => e.type);
  expect(types.at(-1)).toBe("agent_end");
  expect(types.filter((t) => t === "agent_end")).toHaveLength(1);
  const updates = seen.flatMap((e) =>
    e.type === "tool_execution_update" ? [(e.partialResult.content[0] as { text: string }).text] : [],
  );
  expect(updates).toEqual(["working"]);
  expect(types.indexOf("tool_execution_update")).toBeLessThan(types.indexOf("tool_execution_end"));
});
