import type { BeforeStopHook } from "../core/types.ts";
import type { BeforeStopRule } from "../spec/types.ts";
import {
  abnormalEnd,
  boundedOutput,
  couldNotRun,
  emitHookEnd,
  type HookDeps,
  runCommandHook,
} from "./run-command-hook.ts";

/**
 * `before_stop` checks, run in order when the model wants to stop; the first failing one decides.
 * A failure (non-zero exit, timeout, crash) sends its bounded output back to the model, which
 * continues; once a check has failed `max_attempts` times (default 3) the run ends as a failure:
 * "`<command>` still failing after N attempts". All passing lets the model stop.
 */
export function createBeforeStop(rules: BeforeStopRule[], deps: HookDeps): BeforeStopHook {
  const failures = new Map<number, number>();
  return async ({ attempt }, signal) => {
    for (const rule of rules) {
      const call = {
        hook: "before_stop" as const,
        rule: rule.index,
        parts: rule.run.parts,
        timeoutMs: rule.timeoutMs,
        payload: { attempt },
      };
      const run = await runCommandHook(call, deps, signal);
      if (signal.aborted) {
        emitHookEnd(deps, call, run, "error", { reason: "aborted" });
        return undefined;
      }
      const abnormal = abnormalEnd(run, rule.timeoutMs);
      const code = run.result.exitCode;
      if (abnormal === undefined && code === 0) {
        emitHookEnd(deps, call, run, "pass");
        continue;
      }
      const count = (failures.get(rule.index) ?? 0) + 1;
      failures.set(rule.index, count);
      const how = abnormal ?? `failed (exit code ${code})`;
      const broken = abnormal ?? couldNotRun(run);
      const output = boundedOutput(run);
      if (count >= rule.maxAttempts) {
        const fail = `\`${run.command}\` still failing after ${count} attempt${count === 1 ? "" : "s"}`;
        emitHookEnd(deps, call, run, broken ? "error" : "fail", {
          reason: fail,
          failure: fail,
          output: output.text,
          outputTruncated: output.truncated,
        });
        return { fail, rule: rule.index };
      }
      emitHookEnd(deps, call, run, broken ? "error" : "fail", {
        reason: `${how}; attempt ${count} of ${rule.maxAttempts}`,
        outputTruncated: output.truncated,
        ...(broken && { failure: `\`${run.command}\` ${broken}` }),
      });
      const body = output.text.trim() ? `\n\n${output.text.trim()}` : "";
      return {
        continue: `The check \`${run.command}\` ${how}. Fix what it reports, then finish (attempt ${count} of ${rule.maxAttempts}).${body}`,
        rule: rule.index,
      };
    }
    return undefined;
  };
}
