/**
 * Where a task with `output_schema` stands with its result (DESIGN §7), and the stop rule that goes
 * with it: a model that stops without a valid result is asked once more, then the run fails. The
 * `submit_result` tool (submit-result-tool.ts) fills the state in.
 */
import type { BeforeStopHook } from "../core/types.ts";

export const SUBMIT_RESULT_TOOL = "submit_result";

/** What the model is told when it stops without a valid result (once). */
export const RESULT_REMINDER =
  "You stopped without submitting the task's result. Call the submit_result tool now, with the result as its arguments (they must match its schema). If the task cannot be done, call give_up instead.";

/** The run's result, as the tool and the stop rule see it. */
export interface StructuredResult {
  /** The value taken, once a valid call passed the checks. */
  value: unknown;
  accepted: boolean;
  /** Set when a valid call met `before_stop` checks failing for good: the run's failure reason. */
  failure: string | undefined;
  /** Whether the model was already asked to submit after stopping without a result. */
  reminded: boolean;
}

/**
 * The loop's before-stop with a schema: the spec's checks first (`checks`, when it has any); once
 * they let the model stop, a run without a result sends it back once with `RESULT_REMINDER`, then
 * fails.
 */
export function requireResult(state: StructuredResult, checks: BeforeStopHook | undefined): BeforeStopHook {
  return async (ctx, signal) => {
    const verdict = checks ? await checks(ctx, signal) : undefined;
    if (verdict?.continue !== undefined || verdict?.fail !== undefined) return verdict;
    if (state.accepted) return undefined;
    if (!state.reminded) {
      state.reminded = true;
      return { continue: RESULT_REMINDER };
    }
    return { fail: "the model stopped without submitting a valid result (submit_result)" };
  };
}
