import type { AgentRunOutcome } from "../core/events.ts";
import type { Conclusion } from "../output/index.ts";
import { EXIT } from "./types.ts";

/**
 * How a run ended, as the conclusion of usage.json and the exit code of DESIGN §4: success 0,
 * failure 1 (before_stop still failing, or the model gave up), limit 3 (turns, tokens, cost,
 * timeout), error 4 (provider or runner), interrupted 130/143. Never blur 1 and 4: CI retries 4.
 */
export function conclude(
  outcome: AgentRunOutcome | undefined,
  crash: string | undefined,
  abortReason: unknown,
  externalReason: unknown,
  gaveUp: string | undefined,
): { conclusion: Conclusion; exitCode: number; reason?: string } {
  if (crash !== undefined || !outcome) return { conclusion: "error", exitCode: EXIT.error, reason: crash };
  switch (outcome.reason) {
    case "terminate":
      if (gaveUp !== undefined) {
        return { conclusion: "failure", exitCode: EXIT.failure, reason: `the model gave up: ${gaveUp}` };
      }
      return { conclusion: "success", exitCode: EXIT.success };
    case "stop":
      return { conclusion: "success", exitCode: EXIT.success };
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
