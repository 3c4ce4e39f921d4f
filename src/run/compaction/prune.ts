/**
 * Stand-ins for tool results the model no longer sees whole: a pruned result becomes one line
 * naming the tool, its arguments and the size dropped; a result that cannot fit the window even
 * alone keeps its start and end.
 */
import type { AgentMessage, ToolCall, ToolResultMessage } from "../../core/types.ts";
import { IMAGE_CHARS } from "./estimate.ts";

/** Results shorter than this many characters are not worth a stub. */
export const PRUNE_MIN_CHARS = 300;
/** Characters of a call's arguments named in its stub. */
const STUB_ARGS_CHARS = 200;

/** Characters of a result's content (images at `IMAGE_CHARS`). */
export function contentChars(result: ToolResultMessage): number {
  let chars = 0;
  for (const part of result.content) chars += part.type === "text" ? part.text.length : IMAGE_CHARS;
  return chars;
}

/** The tool calls of `messages` by id, for naming a result's arguments. */
export function callsById(messages: readonly AgentMessage[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) if (part.type === "toolCall") calls.set(part.id, part);
  }
  return calls;
}

/** The one-line stub of a pruned result. */
export function prunedResult(result: ToolResultMessage, call: ToolCall | undefined): ToolResultMessage {
  const args = call ? clip(JSON.stringify(call.arguments) ?? "{}", STUB_ARGS_CHARS) : "(arguments unknown)";
  const size = contentChars(result).toLocaleString("en-US");
  const what = result.isError ? "error" : "result";
  return {
    ...result,
    content: [
      {
        type: "text",
        text: `[${what} pruned for room: ${result.toolName} ${args}, ${size} chars; call again to see it]`,
      },
    ],
  };
}

/** A result cut to `maxChars`, its start and end kept, when even the latest turn does not fit. */
export function cutResult(result: ToolResultMessage, maxChars: number): ToolResultMessage {
  const text = result.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
  if (text.length <= maxChars) return result;
  const head = Math.floor(maxChars * 0.6);
  const tail = Math.max(0, maxChars - head);
  const dropped = (text.length - head - tail).toLocaleString("en-US");
  return {
    ...result,
    content: [
      {
        type: "text",
        text: `${text.slice(0, head)}\n[… ${dropped} characters cut: this result alone does not fit the context window …]\n${tail > 0 ? text.slice(-tail) : ""}`,
      },
    ],
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
