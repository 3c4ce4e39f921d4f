import { formatCost } from "./format.ts";
import type { AgentLimits, LimitKind, Usage } from "./types.ts";

/** Where a prompt stands against its limits, before its next model call. */
export interface LimitState {
  /** Turns completed so far. */
  turns: number;
  usage: Usage;
  /** Cost of the previous model call in USD (the estimate of the next one). */
  lastCallCost: number;
  /** Milliseconds since the prompt started. */
  elapsedMs: number;
}

/** The limit that stops the next turn, if any. */
export function checkLimits(
  limits: AgentLimits,
  state: LimitState,
): { kind: LimitKind; message: string } | undefined {
  const { turns, usage, lastCallCost } = state;
  if (limits.maxTurns !== undefined && turns >= limits.maxTurns) {
    return { kind: "turns", message: `max_turns reached (${turns} of ${limits.maxTurns})` };
  }
  if (limits.maxTokens !== undefined && usage.totalTokens >= limits.maxTokens) {
    return { kind: "tokens", message: `max_tokens reached (${usage.totalTokens} of ${limits.maxTokens})` };
  }
  if (limits.maxCostUsd !== undefined) {
    const spent = usage.cost.total;
    if (spent >= limits.maxCostUsd || (turns > 0 && spent + lastCallCost > limits.maxCostUsd)) {
      return {
        kind: "cost",
        message: `max_cost_usd reached: ${formatCost(spent)} spent, the next turn (about ${formatCost(lastCallCost)}) would exceed $${limits.maxCostUsd}`,
      };
    }
  }
  return undefined;
}

/**
 * The wind-down notice due before the next turn, or undefined: when any limit is at least
 * `limits.windDownAt` used up (turns, tokens, cost, time), or the next turn is the last one
 * `maxTurns` allows. The text says what is left of every limit and asks the model to finish, or to
 * leave the work consistent and say what is done and what is left. Given once per prompt by the loop.
 */
export function windDownNotice(limits: AgentLimits, state: LimitState): string | undefined {
  const at = limits.windDownAt;
  if (at === undefined || !(at > 0)) return undefined;
  const parts: string[] = [];
  let near = false;
  const { turns, usage, elapsedMs } = state;
  if (limits.maxTurns !== undefined) {
    const left = limits.maxTurns - turns;
    if (turns >= limits.maxTurns * at || left <= 1) near = true;
    parts.push(`${turns} of ${limits.maxTurns} turns used, ${left} left`);
  }
  if (limits.maxTokens !== undefined) {
    if (usage.totalTokens >= limits.maxTokens * at) near = true;
    parts.push(`${usage.totalTokens} of ${limits.maxTokens} tokens used`);
  }
  if (limits.maxCostUsd !== undefined) {
    const spent = usage.cost.total;
    if (spent >= limits.maxCostUsd * at) near = true;
    parts.push(`$${spent.toFixed(2)} of $${limits.maxCostUsd} spent`);
  }
  if (limits.timeoutMs !== undefined) {
    if (elapsedMs >= limits.timeoutMs * at) near = true;
    const leftS = Math.max(0, Math.round((limits.timeoutMs - elapsedMs) / 1000));
    parts.push(
      `${Math.round(elapsedMs / 1000)} s of ${Math.round(limits.timeoutMs / 1000)} s elapsed, about ${leftS} s left`,
    );
  }
  if (!near) return undefined;
  return [
    `Notice: this run is near its limit (${parts.join("; ")}). When a limit is reached the run stops, wherever it is.`,
    "Finish the task within what is left if you can. If you cannot, use what is left to wrap up: leave the files consistent (no half-made change), and make your last reply say what is done and what is left, so the next run or a person can pick it up.",
  ].join("\n");
}
