import type { AgentRunOutcome } from "../core/events.ts";
import type { Conclusion } from "../output/index.ts";
import type { StructuredResult } from "./result-state.ts";
import { EXIT } from "./types.ts";

export interface ConcludeInput {
  /** How the agent ended; undefined when it never ran. */
  outcome: AgentRunOutcome | undefined;
  /** A runner failure, as the reason. */
  crash: string | undefined;
  /** Why the run's controller aborted ("timeout", a signal name, "finished"). */
  abortReason: unknown;
  /** Why the caller's signal aborted ("SIGINT", "SIGTERM"). */
  externalReason: unknown;
  /** The give_up tool's reason, when the model called it. */
  gaveUp: string | undefined;
  /** The structured result of a task with `output_schema`; undefined without one. */
  result?: Pick<StructuredResult, "accepted" | "failure">;
}

/**
 * How a run ended, as the conclusion of usage.json and the exit code of DESIGN §4: success 0,
 * failure 1 (before_stop still failing, the model gave up, or a task with `output_schema` ended
 * without a valid result), limit 3 (turns, tokens, cost, timeout), error 4 (provider or runner),
 * interrupted 130/143. Never blur 1 and 4: CI retries 4.
 */
export function conclude(input: ConcludeInput): {
  conclusion: Conclusion;
  exitCode: number;
  reason?: string;
} {
  const { outcome, crash, abortReason, externalReason, gaveUp, result } = input;
  if (crash !== undefined || !outcome) return { conclusion: "error", exitCode: EXIT.error, reason: crash };
  const withResult = (): { conclusion: Conclusion; exitCode: number; reason?: string } => {
    if (!result || result.accepted) return { conclusion: "success", exitCode: EXIT.success };
    const reason = result.failure ?? "the model stopped without submitting a valid result (submit_result)";
    return { conclusion: "failure", exitCode: EXIT.failure, reason };
  };
  switch (outcome.reason) {
    case "terminate":
      if (gaveUp !== undefined) {
        return { conclusion: "failure", exitCode: EXIT.failure, reason: `the model gave up: ${gaveUp}` };
      }
      return withResult();
    case "stop":
      return withResult();
    case "failure":
      return {
        conclusion: "failure",
        exitCode: EXIT.failure,
        ...(outcome.message && { reason: outcome.message }),
      };
    case "limit":
      return {
        conclusion: "limit",
        exitCode: EXIT.limit,
        ...(outcome.message && { reason: outcome.message }),
      };
    case "error":
      return {
        conclusion: "error",
        exitCode: EXIT.error,
        ...(outcome.message && { reason: outcome.message }),
      };
    case "aborted": {
      if (abortReason === "timeout")
        return { conclusion: "limit", exitCode: EXIT.limit, reason: "timeout reached" };
      const sigint = externalReason === "SIGINT";
      return {
        conclusion: "interrupted",
        exitCode: sigint ? EXIT.sigint : EXIT.sigterm,
        reason: `interrupted by ${sigint ? "SIGINT" : "SIGTERM"}`,
      };
    }
  }
}

/** How a run ended, as `conclude` gives it. */
export type Ended = ReturnType<typeof conclude>;

/**
 * A run whose patch could not be computed, or whose outputs could not be written, failed whatever
 * the agent did: an error (exit 4, CI retries), never a success with an empty patch. The reason
 * says what failed and how the run itself ended.
 */
export function concludeOutputFailure(ended: Ended, failure: string): Ended {
  const itself = ended.reason ? `${ended.conclusion}: ${ended.reason}` : ended.conclusion;
  return {
    conclusion: "error",
    exitCode: EXIT.error,
    reason: `${failure} (the run itself ended as ${itself})`,
  };
}
