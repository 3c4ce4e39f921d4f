import type { AgentRunOutcome } from "../core/events.ts";
import type { AgentMessage, AssistantMessage } from "../core/types.ts";
import type { RunEvent } from "./types.ts";

/**
 * The form of an event that is written out (events.jsonl, `--json`, `onEvent`). Every message is
 * written whole once, in its `message_end` (tool results also in `tool_execution_end`); the other
 * events refer to it. Streaming updates carry only their delta: repeating the growing partial
 * message with every delta would make the events file (and its redaction) quadratic in the length
 * of a reply, and repeating messages in `message_start` and `turn_end` would double it again.
 * Tool progress updates say only which call made progress: a long build would otherwise write its
 * growing output view to the file every 250 ms.
 */
export type CompactRunEvent =
  | Exclude<
      RunEvent,
      { type: "message_update" | "message_start" | "turn_end" | "agent_end" | "tool_execution_update" }
    >
  | { type: "tool_execution_update"; toolCallId: string; toolName: string }
  | { type: "agent_end"; outcome: Omit<AgentRunOutcome, "newMessages"> }
  | { type: "message_start"; role: AgentMessage["role"] }
  | {
      type: "turn_end";
      turn: number;
      stopReason: AssistantMessage["stopReason"];
      toolCallIds: string[];
    }
  | {
      type: "message_update";
      update: "start" | "text_delta" | "thinking_delta" | "toolcall_delta" | "retry" | "done" | "error";
      contentIndex?: number;
      delta?: string;
      attempt?: number;
      delayMs?: number;
      reason?: string;
    };

export function compactEvent(event: RunEvent): CompactRunEvent {
  if (event.type === "agent_end") {
    const { newMessages: _transcript, ...outcome } = event.outcome;
    return { type: "agent_end", outcome };
  }
  if (event.type === "tool_execution_update") {
    // The partial output is a growing view (up to the tool's output budget) sent several times a
    // second; the final result is in tool_execution_end.
    return { type: "tool_execution_update", toolCallId: event.toolCallId, toolName: event.toolName };
  }
  if (event.type === "message_start") return { type: "message_start", role: event.message.role };
  if (event.type === "turn_end") {
    return {
      type: "turn_end",
      turn: event.turn,
      stopReason: event.message.stopReason,
      toolCallIds: event.toolResults.map((result) => result.toolCallId),
    };
  }
  if (event.type !== "message_update") return event;
  const update = event.event;
  switch (update.type) {
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return {
        type: "message_update",
        update: update.type,
        contentIndex: update.contentIndex,
        delta: update.delta,
      };
    case "retry":
      return {
        type: "message_update",
        update: "retry",
        attempt: update.attempt,
        delayMs: update.delayMs,
        reason: update.reason,
      };
    default:
      return { type: "message_update", update: update.type };
  }
}
