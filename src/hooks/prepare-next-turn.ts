import { formatCost, modelLabel } from "../core/format.ts";
import type { Model, PrepareNextTurnHook, ThinkingLevel } from "../core/types.ts";
import type { PrepareNextTurnRule } from "../spec/types.ts";
import type { HookDeps } from "./run-command-hook.ts";

/**
 * `prepare_next_turn` rules: before each turn after the first, every rule whose conditions all
 * hold applies in order (a later rule overrides an earlier one). `turn_gte: N` holds from turn N
 * on; `cost_gte_usd: X` once the cost so far reaches X (never while the cost is unknown). Returns
 * an update only when the model or thinking level actually changes, so a switch is one event.
 */
export function createPrepareNextTurn(
  rules: PrepareNextTurnRule[],
  deps: HookDeps,
  initial: { model: Model; thinking: ThinkingLevel },
): PrepareNextTurnHook {
  let current = { model: initial.model, thinking: initial.thinking };
  return (ctx) => {
    const nextTurn = ctx.turn + 1;
    const cost = deps.getCost() ?? (ctx.usage.costUnknown ? null : ctx.usage.cost.total);
    let model = current.model;
    let thinking = current.thinking;
    let decidedBy: number | undefined;
    for (const rule of rules) {
      if (rule.when.turnGte !== undefined && nextTurn < rule.when.turnGte) continue;
      if (rule.when.costGteUsd !== undefined && (cost === null || cost < rule.when.costGteUsd)) continue;
      if (rule.model) model = rule.model;
      if (rule.thinking) thinking = rule.thinking;
      decidedBy = rule.index;
    }
    const modelChanged = label(model) !== label(current.model);
    const thinkingChanged = thinking !== current.thinking;
    if (decidedBy === undefined || (!modelChanged && !thinkingChanged)) return undefined;
    current = { model, thinking };
    return {
      ...(modelChanged && { model }),
      ...(thinkingChanged && { thinkingLevel: thinking }),
      reason: `turn ${nextTurn}${cost === null ? "" : `, ${formatCost(cost)} spent`}`,
      rule: decidedBy,
    };
  };
}

/** The model's label, with its base URL when it has one: the same id on another server is another model. */
function label(model: Model): string {
  return `${modelLabel(model)}${model.baseUrl ? `@${model.baseUrl}` : ""}`;
}
