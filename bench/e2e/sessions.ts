/** Scripted model sessions for the mock LLM: what the "model" asks for, turn by turn. */
import type { MockReply, MockScript } from "../../test/mock-llm/server.ts";

const USAGE = { input: 1000, output: 20 };

/** The final reply of every session: plain text, no tool calls, so the run ends with success. */
export const DONE: MockReply = { text: "Done.", usage: USAGE };

/** Lines `<<0>>` … `<<turns-1>>`: every edit turn replaces its own marker, which matches once. */
export function markerFile(turns: number): string {
  return Array.from({ length: turns }, (_, i) => `<<${i}>> some text on this line\n`).join("");
}

/** Tool call `i` of the per-turn session: read, edit, a trivial bash and write, in turn. */
export function cycleCall(i: number): { name: string; arguments: Record<string, unknown> } {
  switch (i % 4) {
    case 0:
      return { name: "read", arguments: { path: "main.txt" } };
    case 1:
      return {
        name: "edit",
        arguments: { path: "main.txt", edits: [{ oldText: `<<${i}>>`, newText: `<<${i} done>>` }] },
      };
    case 2:
      return { name: "bash", arguments: { command: "echo ok" } };
    default:
      return { name: "write", arguments: { path: `out/w${i}.txt`, content: `written by turn ${i}\n` } };
  }
}

/** `turns` turns of one tool call each (see `cycleCall`), then DONE. Requests: turns + 1. */
export function toolCycleScript(turns: number): MockScript {
  return (index) => (index < turns ? { toolCalls: [cycleCall(index)], usage: USAGE } : DONE);
}

/** One turn with `calls` bash calls of `command`, then DONE. */
export function fanOutScript(command: string, calls: number): MockScript {
  const turn: MockReply = {
    toolCalls: Array.from({ length: calls }, () => ({ name: "bash", arguments: { command } })),
    usage: USAGE,
  };
  return [turn, DONE];
}

/** `turns` turns each reading `file`, then DONE. */
export function readLoopScript(turns: number, file: string): MockScript {
  return (index) =>
    index < turns ? { toolCalls: [{ name: "read", arguments: { path: file } }], usage: USAGE } : DONE;
}
