import type { FieldChecks, Path } from "./field-checks.ts";
import type { RawTaskSpec } from "./schema.ts";
import { DEFAULT_HOOK_TIMEOUT_MS, DEFAULT_MAX_ATTEMPTS, type TaskSpec } from "./types.ts";

/** The spec's `hooks`, one list per hook point, each rule checked and given its defaults. */
export function hooksOf(raw: RawTaskSpec, checks: FieldChecks): TaskSpec["hooks"] {
  return {
    beforeToolCall: beforeToolCallRules(raw, checks),
    afterToolCall: afterToolCallRules(raw, checks),
    prepareNextTurn: prepareNextTurnRules(raw, checks),
    beforeStop: beforeStopRules(raw, checks),
  };
}

function hookTimeout(value: string | number | undefined, path: Path, { duration }: FieldChecks): number {
  return duration(value, [...path, "timeout"], DEFAULT_HOOK_TIMEOUT_MS) ?? DEFAULT_HOOK_TIMEOUT_MS;
}

function beforeToolCallRules(raw: RawTaskSpec, checks: FieldChecks): TaskSpec["hooks"]["beforeToolCall"] {
  return (raw.hooks?.before_tool_call ?? []).map((rule, index) => {
    const path: Path = ["hooks", "before_tool_call", index];
    const match = checks.matchOf(rule.match, [...path, "match"]);
    return {
      index,
      ...(match && { match }),
      ...(rule.block !== undefined && { block: rule.block }),
      ...(rule.run !== undefined && { run: checks.command(rule.run, [...path, "run"]) }),
      timeoutMs: hookTimeout(rule.timeout, path, checks),
    };
  });
}

function afterToolCallRules(raw: RawTaskSpec, checks: FieldChecks): TaskSpec["hooks"]["afterToolCall"] {
  return (raw.hooks?.after_tool_call ?? []).map((rule, index) => {
    const path: Path = ["hooks", "after_tool_call", index];
    const match = checks.matchOf(rule.match, [...path, "match"]);
    return {
      index,
      ...(match && { match }),
      run: checks.command(rule.run, [...path, "run"]),
      timeoutMs: hookTimeout(rule.timeout, path, checks),
    };
  });
}

function prepareNextTurnRules(raw: RawTaskSpec, checks: FieldChecks): TaskSpec["hooks"]["prepareNextTurn"] {
  return (raw.hooks?.prepare_next_turn ?? []).map((rule, index) => {
    const path: Path = ["hooks", "prepare_next_turn", index];
    const next =
      rule.model === undefined ? undefined : checks.model(rule.model, { path: [...path, "model"] });
    return {
      index,
      when: {
        ...(rule.when.turn_gte !== undefined && { turnGte: rule.when.turn_gte }),
        ...(rule.when.cost_gte_usd !== undefined && { costGteUsd: rule.when.cost_gte_usd }),
      },
      ...(next && { model: next }),
      ...(rule.thinking !== undefined && { thinking: rule.thinking }),
    };
  });
}

/** before_stop commands run with no tool call at hand, so `tool.` templates are refused there. */
function beforeStopRules(raw: RawTaskSpec, checks: FieldChecks): TaskSpec["hooks"]["beforeStop"] {
  return (raw.hooks?.before_stop ?? []).map((rule, index) => {
    const path: Path = ["hooks", "before_stop", index];
    const run = checks.command(rule.run, [...path, "run"]);
    if (run.parts.some((p) => typeof p !== "string")) {
      checks.report(
        { path: [...path, "run"] },
        "'tool.' templates are not available in before_stop commands",
        {
          expected: "{{ vars.NAME }} or {{ env.NAME }}",
        },
      );
    }
    return {
      index,
      run,
      maxAttempts: rule.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
      timeoutMs: hookTimeout(rule.timeout, path, checks),
    };
  });
}
