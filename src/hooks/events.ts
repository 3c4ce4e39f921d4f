import type { HookPoint } from "../core/events.ts";

export type { HookPoint };

/**
 * What a finished command hook meant: `allow`/`block` (before_tool_call), `output`/`patch`/`none`
 * (after_tool_call: text appended, result replaced, nothing to add), `pass`/`fail` (before_stop),
 * `error` (crashed, timed out or broke the protocol; before_tool_call then blocks: fail closed).
 */
export type HookOutcome = "allow" | "block" | "output" | "patch" | "none" | "pass" | "fail" | "error";

interface HookCallFields {
  hook: HookPoint;
  /** The rule's index in its list in the spec. */
  rule: number;
  toolCallId?: string;
  toolName?: string;
}

/**
 * Events about spec hooks, beside the core's `hook_decision` (one a decision, naming the rule that
 * made it): what a command hook did and how long it took. The runner writes them to events.jsonl; `hook_failed` feeds the
 * summary's hook failures, and blocked calls carry their reason.
 */
export type HookEvent =
  | (HookCallFields & { type: "hook_start"; command: string })
  | (HookCallFields & {
      type: "hook_end";
      command: string;
      /** Null when the process was killed or could not start. */
      exitCode: number | null;
      durationMs: number;
      timedOut: boolean;
      outcome: HookOutcome;
      /** Block reason, failure message or what was appended, shortened. */
      reason?: string;
      /** Bytes the hook wrote, whether or not all were kept. */
      stdoutBytes: number;
      stderrBytes: number;
      /** Some output was cut before it reached the model. */
      outputTruncated: boolean;
    })
  | (HookCallFields & {
      type: "hook_failed";
      command?: string;
      /** One line: what failed and how. */
      message: string;
      /** The end of the command's output (bounded), so the summary can show why. */
      output?: string;
    });
