/**
 * The run's side of the progress comment: folds the run's events into a `ProgressSnapshot` (turn,
 * cost so far, the latest tool calls) and hands it on when it changed, at most once per
 * `minGapMs` (the action's side throttles the comment's edits; this only keeps the IPC channel
 * from carrying a message per event).
 */
import type { CompactRunEvent } from "../run/index.ts";
import { shortArgs } from "../run/short-args.ts";
import { MAX_PROGRESS_TOOLS, type ProgressSnapshot, type ProgressToolCall } from "./run-protocol.ts";

/** Default of `minGapMs`. */
export const DEFAULT_PROGRESS_GAP_MS = 250;

export interface ProgressTracker {
  handle(event: CompactRunEvent): void;
  /** Sends a pending snapshot now. */
  flush(): void;
}

export function createProgressTracker(
  send: (snapshot: ProgressSnapshot) => void,
  minGapMs = DEFAULT_PROGRESS_GAP_MS,
): ProgressTracker {
  const snapshot: ProgressSnapshot = { turn: 0, costUsd: 0, toolCalls: 0, recent: [] };
  const byId = new Map<string, ProgressToolCall>();
  let timer: NodeJS.Timeout | undefined;
  let dirty = false;
  let last = 0;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!dirty) return;
    dirty = false;
    last = Date.now();
    send(structuredClone(snapshot));
  };
  const changed = () => {
    dirty = true;
    if (timer !== undefined) return;
    const wait = Math.max(0, last + minGapMs - Date.now());
    timer = setTimeout(flush, wait);
    timer.unref();
  };
  return {
    flush,
    handle(event) {
      switch (event.type) {
        case "turn_start":
          snapshot.turn = event.turn;
          changed();
          break;
        case "usage":
          snapshot.costUsd = event.total.costUnknown ? null : event.total.cost.total;
          changed();
          break;
        case "tool_execution_start": {
          const call: ProgressToolCall = {
            name: event.toolName,
            args: shortArgs(event.toolName, event.args, 60),
            status: "running",
          };
          byId.set(event.toolCallId, call);
          snapshot.toolCalls++;
          snapshot.recent.push(call);
          if (snapshot.recent.length > MAX_PROGRESS_TOOLS) snapshot.recent.shift();
          changed();
          break;
        }
        case "tool_execution_end": {
          const call = byId.get(event.toolCallId);
          byId.delete(event.toolCallId);
          if (!call) break;
          call.status = event.blocked ? "blocked" : event.isError ? "error" : "done";
          call.durationMs = event.durationMs;
          changed();
          break;
        }
        default:
          break;
      }
    },
  };
}
