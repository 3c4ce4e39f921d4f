import type { RunEvent } from "./types.ts";

/**
 * The form of an event that is written out (events.jsonl, `--json`, `onEvent`). Streaming
 * updates carry only their delta: the message they belong to is complete in the `message_end`
 * that follows, and repeating the growing partial message with every delta would make the events
 * file (and the redaction of it) quadratic in the length of a reply.
 */
export type CompactRunEvent =
  | Exclude<RunEvent, { type: "message_update" }>
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
