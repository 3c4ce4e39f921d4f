/**
 * The caps on one turn's tool calls (docs/security.md, "Caps"): how many of an assistant
 * message's calls are executed (`caps.turn_tool_calls`) and how many bytes of their results the
 * turn keeps (`caps.turn_results`). Everything a result holds stays in the runner's memory for
 * the run (the transcript, the events), so a model sending hundreds of parallel calls that each
 * return a full 50 KiB must not multiply that without bound.
 *
 * Both are hooks around the task's own: the call cap is the first `beforeToolCall` guard (a call
 * past it is blocked, by its position in the message, before any other guard runs), the result
 * cap the last `afterToolCall` step (it sees the result with the task's hook output added).
 * Results are counted in the order they finish; one that does not fit in what is left is cut:
 * its text keeps its head and tail in the room left, images that do not fit are dropped, details
 * that do not fit are replaced, and a note says so. A result of at most `ALWAYS_KEPT_BYTES` is
 * never cut (errors, give_up), so the whole turn holds at most the cap plus that per call.
 */
import type {
  AfterToolCallHook,
  AgentToolResult,
  AssistantMessage,
  BeforeToolCallHook,
  ToolCall,
} from "../core/types.ts";
import { formatBytes } from "../system/caps.ts";
import { truncateHeadTail } from "../system/truncate.ts";

/** Bytes of a result that are kept whatever the turn's budget says: 1 KiB. */
export const ALWAYS_KEPT_BYTES = 1024;

export interface TurnCaps {
  /** Calls of one assistant message that run (`caps.turn_tool_calls`). */
  maxCalls: number;
  /** Bytes of results one turn keeps (`caps.turn_results`). */
  maxResultBytes: number;
}

type Content = AgentToolResult["content"];

/** The task's guards and after-hooks with the turn caps around them. */
export function withTurnCaps(
  caps: TurnCaps,
  hooks: { beforeToolCall?: BeforeToolCallHook; afterToolCall?: AfterToolCallHook },
): { beforeToolCall: BeforeToolCallHook; afterToolCall: AfterToolCallHook } {
  const positions = new WeakMap<AssistantMessage, Map<ToolCall, number>>();
  const used = new WeakMap<AssistantMessage, { bytes: number }>();

  const positionOf = (message: AssistantMessage, call: ToolCall) => {
    let map = positions.get(message);
    if (!map) {
      map = new Map();
      for (const part of message.content) if (part.type === "toolCall") map.set(part, map.size);
      positions.set(message, map);
    }
    return { index: map.get(call) ?? 0, count: map.size };
  };

  const beforeToolCall: BeforeToolCallHook = async (ctx, signal) => {
    const { index, count } = positionOf(ctx.assistantMessage, ctx.toolCall);
    if (index >= caps.maxCalls) {
      return {
        block: true,
        reason: `this turn has ${count} tool calls and only the first ${caps.maxCalls} run (caps.turn_tool_calls); send this one again in a later turn`,
      };
    }
    return hooks.beforeToolCall?.(ctx, signal);
  };

  const afterToolCall: AfterToolCallHook = async (ctx, signal) => {
    const patch = await hooks.afterToolCall?.(ctx, signal);
    const content = patch?.content ?? ctx.result.content;
    const details: unknown = patch?.details !== undefined ? patch.details : ctx.result.details;
    let budget = used.get(ctx.assistantMessage);
    if (!budget) {
      budget = { bytes: 0 };
      used.set(ctx.assistantMessage, budget);
    }
    const size = contentBytes(content) + jsonBytes(details);
    const room = Math.max(0, caps.maxResultBytes - budget.bytes);
    if (size <= room || size <= ALWAYS_KEPT_BYTES) {
      budget.bytes += size;
      return patch;
    }
    const cut = cutResult(content, details, Math.max(room, ALWAYS_KEPT_BYTES), {
      capBytes: caps.maxResultBytes,
      size,
    });
    budget.bytes += cut.bytes;
    return { ...patch, content: cut.content, details: cut.details };
  };

  return { beforeToolCall, afterToolCall };
}

function contentBytes(content: Content): number {
  let sum = 0;
  for (const part of content) sum += part.type === "text" ? Buffer.byteLength(part.text) : part.data.length;
  return sum;
}

function jsonBytes(value: unknown): number {
  if (value === undefined) return 0;
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? "");
  } catch {
    return 0;
  }
}

/** The result cut to about `room` bytes, with a note; the note itself is not counted. */
function cutResult(
  content: Content,
  details: unknown,
  room: number,
  info: { capBytes: number; size: number },
): { content: Content; details: unknown; bytes: number } {
  let left = room;
  const detailsBytes = jsonBytes(details);
  // Details come first when small: tools' own fields (an exit code, a path) are worth more than
  // the last kilobytes of a text.
  const keepDetails = detailsBytes <= Math.min(left, ALWAYS_KEPT_BYTES);
  if (keepDetails) left -= detailsBytes;
  const out: Content = [];
  let dropped = 0;
  for (const part of content) {
    if (part.type === "image") {
      if (part.data.length <= left) {
        out.push(part);
        left -= part.data.length;
      } else {
        dropped += part.data.length;
        out.push({ type: "text", text: `[an image (${part.mimeType}) was dropped here]` });
      }
      continue;
    }
    const bytes = Buffer.byteLength(part.text);
    if (bytes <= left) {
      out.push(part);
      left -= bytes;
      continue;
    }
    const kept =
      left >= 64
        ? truncateHeadTail(part.text, { maxBytes: left, maxLines: Number.MAX_SAFE_INTEGER })
        : undefined;
    if (kept) {
      out.push({ type: "text", text: kept.content });
      left -= Buffer.byteLength(kept.content);
      dropped += bytes - kept.outputBytes;
    } else {
      dropped += bytes;
    }
  }
  if (!keepDetails) dropped += detailsBytes;
  out.push({
    type: "text",
    text: `[result cut: this turn's tool results reached the cap of ${formatBytes(info.capBytes)} (caps.turn_results); ${dropped} of its ${info.size} bytes were dropped. Ask for less per call, or spread the calls over several turns.]`,
  });
  const cutDetails = keepDetails ? details : { cut: { reason: "turn_results", droppedBytes: detailsBytes } };
  return {
    content: out,
    details: cutDetails,
    bytes: room - left + (keepDetails ? 0 : jsonBytes(cutDetails)),
  };
}
