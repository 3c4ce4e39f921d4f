import { expect, test } from "vitest";
import { z } from "zod";
import { CUT_TOOL_CALL_MESSAGE } from "../src/core/execute-tools.ts";
import { Agent, type AgentEvent, type AnyAgentTool, type ToolResultMessage } from "../src/core/index.ts";
import { scriptedStream } from "./helpers/scripted-stream.ts";
import { textOf } from "./helpers/tools.ts";

const model = { provider: "test", id: "m1" };

/** DESIGN §7 "Output-token limit": a message cut by the limit has none of its calls run. */
test("no tool call of a message cut by the output-token limit runs; each gets an error; the run goes on", async () => {
  const ran: string[] = [];
  const write: AnyAgentTool = {
    name: "write",
    label: "Write",
    description: "writes",
    parameters: z.object({ path: z.string(), content: z.string() }),
    async execute(_id, params: { path: string }) {
      ran.push(params.path);
      return { content: [{ type: "text", text: `wrote ${params.path}` }], details: {} };
    },
  };
  const hooks: string[] = [];
  const { stream, snapshots } = scriptedStream([
    {
      stopReason: "length",
      toolCalls: [
        // Complete-looking: valid JSON, valid arguments. It was still cut.
        { name: "write", arguments: { path: "a.txt", content: "whole" } },
        { name: "write", arguments: { path: "b.txt" }, parseError: "Unexpected end of JSON input" },
      ],
    },
    { toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "smaller" } }] },
    { text: "done" },
  ]);
  const events: AgentEvent[] = [];
  const agent = new Agent({
    stream,
    model,
    tools: [write],
    beforeToolCall: ({ toolCall }) => {
      hooks.push(`before:${toolCall.id}`);
      return undefined;
    },
    afterToolCall: ({ toolCall }) => {
      hooks.push(`after:${toolCall.id}`);
      return undefined;
    },
  });
  agent.subscribe((event) => events.push(event));
  const outcome = await agent.prompt("go");

  expect(outcome.reason).toBe("stop");
  expect(ran).toEqual(["a.txt"]);
  const results = agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
  expect(results.map((r) => [r.toolCallId, r.isError, textOf(r.content)])).toEqual([
    ["call_1_0", true, CUT_TOOL_CALL_MESSAGE],
    ["call_1_1", true, CUT_TOOL_CALL_MESSAGE],
    ["call_2_0", false, "wrote a.txt"],
  ]);
  // The hooks never saw the cut calls: they were not going to run.
  expect(hooks).toEqual(["before:call_2_0", "after:call_2_0"]);
  // The model was told, and the cut calls count as errors, not blocks.
  expect(snapshots[1]!.messages).toContain("cut off by the output-token limit");
  const ends = events.filter((e) => e.type === "tool_execution_end");
  expect(ends.map((e) => e.type === "tool_execution_end" && [e.isError, e.blocked])).toEqual([
    [true, false],
    [true, false],
    [false, false],
  ]);
});
