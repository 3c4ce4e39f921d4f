import type { RepeatedFailureLimits, ToolCall, ToolResultMessage } from "./types.ts";

/** Default of `RepeatedFailureLimits.warnAt`: the third identical failure in a row is pointed out. */
export const DEFAULT_REPEAT_WARN_AT = 3;
/** Default of `RepeatedFailureLimits.failAt`: the fifth identical failure in a row ends the run. */
export const DEFAULT_REPEAT_FAIL_AT = 5;

/** What one result means for the run: nothing, a notice for the model, or the end of the run. */
export type RepeatVerdict =
  | { kind: "ok" }
  | { kind: "warn"; notice: string }
  | { kind: "fail"; reason: string };

/**
 * Counts the same failing call made again and again: the same tool, the same arguments (key order
 * ignored) and the same error text, one after the other in call order. Any other call, or the same
 * one succeeding, starts the count over. Copies of a call within one turn (one assistant message)
 * count once: the model wrote them before it saw any of them fail, so they are not a repeat (400
 * identical calls blocked by caps.turn_tool_calls are one). Pure; one guard per prompt.
 */
export function createRepeatGuard(limits: RepeatedFailureLimits = {}): {
  observe(call: ToolCall, result: ToolResultMessage, turn: number): RepeatVerdict;
} {
  const warnAt = limits.warnAt ?? DEFAULT_REPEAT_WARN_AT;
  const failAt = limits.failAt ?? DEFAULT_REPEAT_FAIL_AT;
  let last = "";
  let lastTurn = -1;
  let count = 0;
  return {
    observe(call, result, turn) {
      if (!result.isError) {
        last = "";
        count = 0;
        return { kind: "ok" };
      }
      const error = result.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
      const key = `${call.name}\u0000${stableJson(call.arguments)}\u0000${error}`;
      if (key === last && turn === lastTurn) return { kind: "ok" };
      count = key === last ? count + 1 : 1;
      last = key;
      lastTurn = turn;
      const what = `${call.name} ${clip(stableJson(call.arguments), 200)}`;
      if (count >= failAt) {
        const firstLine = clip(error.trim().split("\n", 1)[0] ?? "", 200);
        return {
          kind: "fail",
          reason: `the same tool call failed ${count} times in a row with the same error: ${what}: ${firstLine}`,
        };
      }
      if (count >= warnAt) {
        return {
          kind: "warn",
          notice: [
            `Notice: you are repeating yourself. The call ${what} has now failed ${count} times in a row with the same error.`,
            `Making it again will fail again: read the error, then change the arguments or take another approach. At ${failAt} identical failures in a row the run ends as a failure.`,
          ].join("\n"),
        };
      }
      return { kind: "ok" };
    },
  };
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` are the same call. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  });
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
