import type { BeforeToolCallHook } from "../core/types.ts";
import type { BeforeToolCallRule } from "../spec/types.ts";
import { matchesCall } from "./match.ts";
import {
  abnormalEnd,
  emitHookEnd,
  type HookDeps,
  oneLine,
  readJsonObject,
  runCommandHook,
} from "./run-command-hook.ts";

/** Longest block reason passed to the model: 2000 characters. */
export const MAX_REASON_CHARS = 2000;

/**
 * `before_tool_call` rules in order; the first block wins. A declarative rule (`block: reason`)
 * blocks every call it matches. A command hook allows with exit 0 (unless its stdout is
 * `{"block": true, "reason": …}`), blocks with exit 2 (stderr is the reason), and blocks on any
 * other exit, a timeout or a crash too: it fails closed, reported as a hook error. So does a
 * verdict it garbled: stdout (or its last line) starting with `{` that is not a JSON object, or
 * a `block` that is not `true` or `false`.
 */
export function createBeforeToolCall(rules: BeforeToolCallRule[], deps: HookDeps): BeforeToolCallHook {
  return async ({ toolCall, args }, signal) => {
    for (const rule of rules) {
      if (!matchesCall(rule.match, toolCall.name, args, deps.workspace)) continue;
      if (rule.block !== undefined) return { block: true, reason: rule.block, rule: rule.index };
      if (!rule.run) continue;
      const call = {
        hook: "before_tool_call" as const,
        rule: rule.index,
        parts: rule.run.parts,
        timeoutMs: rule.timeoutMs,
        tool: { name: toolCall.name, id: toolCall.id, args },
      };
      const run = await runCommandHook(call, deps, signal);
      if (run.result.canceled) {
        // The run is ending; the call will not run either way, and this is no hook failure.
        emitHookEnd(deps, call, run, "block", { reason: "the run was aborted" });
        return { block: true, reason: "the run was aborted", rule: rule.index };
      }
      const abnormal = abnormalEnd(run, rule.timeoutMs);
      const code = run.result.exitCode;
      if (abnormal !== undefined || (code !== 0 && code !== 2)) {
        const how = abnormal ?? `exited ${code}`;
        const stderr = run.result.stderr.trim();
        const reason = clip(
          `hook error: \`${run.command}\` ${how}${stderr ? `: ${stderr}` : ""} (calls are blocked when a guard fails)`,
        );
        emitHookEnd(deps, call, run, "error", {
          reason,
          failure: `\`${run.command}\` ${how}${stderr ? `: ${oneLine(stderr, 200)}` : ""}`,
        });
        return { block: true, reason, rule: rule.index };
      }
      if (code === 2) {
        const reason = clip(run.result.stderr.trim() || `blocked by \`${run.command}\``);
        emitHookEnd(deps, call, run, "block", { reason });
        return { block: true, reason, rule: rule.index };
      }
      const read = readJsonObject(run.result.stdout);
      const verdict = read.kind === "object" ? read.value : undefined;
      const garbled =
        read.kind === "broken"
          ? "printed a verdict that is not valid JSON"
          : verdict && "block" in verdict && typeof verdict.block !== "boolean"
            ? "printed a verdict whose `block` is not true or false"
            : undefined;
      if (garbled !== undefined) {
        const shown = oneLine(run.result.stdout, 200);
        const reason = clip(
          `hook error: \`${run.command}\` ${garbled} (\`${shown}\`); calls are blocked when a guard fails`,
        );
        emitHookEnd(deps, call, run, "error", { reason, failure: `\`${run.command}\` ${garbled}: ${shown}` });
        return { block: true, reason, rule: rule.index };
      }
      if (verdict?.block === true) {
        const reason = clip(
          typeof verdict.reason === "string" && verdict.reason.trim()
            ? verdict.reason.trim()
            : `blocked by \`${run.command}\``,
        );
        emitHookEnd(deps, call, run, "block", { reason });
        return { block: true, reason, rule: rule.index };
      }
      emitHookEnd(deps, call, run, "allow");
    }
    return undefined;
  };
}

function clip(text: string): string {
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS - 1)}…` : text;
}
