/** `usage.json` (DESIGN §5): the run's conclusion, turns, tokens, cost, tool calls and changed files. */
import path from "node:path";
import type { Usage } from "../core/types.ts";
import { addUsage } from "../core/usage.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import type { ChangedFile, Conclusion, RunRecord, ToolStats } from "./types.ts";

/** File name of the usage file in the outputs dir. */
export const USAGE_FILE = "usage.json";

/** Exactly DESIGN §5's fields. Units: milliseconds, tokens, USD. */
export interface UsageJson {
  conclusion: Conclusion;
  turns: number;
  duration_ms: number;
  model: string;
  tokens: { input: number; output: number; cache_read: number; cache_write: number; total: number };
  /** Null when some tokens came from a model without a known price. */
  cost_usd: number | null;
  tool_calls: {
    total: number;
    by_tool: Record<string, { calls: number; errors: number; blocked: number; duration_ms: number }>;
  };
  /** Number of files the run changed (a rename counts once). */
  files_changed: number;
  /** This run's id; a resumed run names it in `resumed_from`. */
  run_id?: string;
  /** Times the conversation was compacted to fit the context window (absent: never). */
  compactions?: number;
  /**
   * The run this one resumed, with its own figures (those of the runs it resumed included). The
   * figures above count both: turns, duration, tokens, cost and tool calls.
   */
  resumed_from?: {
    run_id: string;
    conclusion: Conclusion;
    turns: number;
    duration_ms: number;
    tokens: UsageJson["tokens"];
    cost_usd: number | null;
  };
}

/** Turns, wall time, usage and tool calls of a run and the runs it resumed, together. */
export interface RunTotals {
  turns: number;
  durationMs: number;
  usage: Usage;
  toolCalls: Record<string, ToolStats>;
}

/** The record's figures plus those of the run it resumed (the record's own when it resumed none). */
export function runTotals(record: RunRecord): RunTotals {
  const earlier = record.resumedFrom;
  if (!earlier) {
    return {
      turns: record.turns,
      durationMs: record.durationMs,
      usage: record.usage,
      toolCalls: record.toolCalls,
    };
  }
  const toolCalls: Record<string, ToolStats> = structuredClone(earlier.toolCalls);
  for (const [name, stats] of Object.entries(record.toolCalls)) {
    const sum = toolCalls[name] ?? { calls: 0, errors: 0, blocked: 0, durationMs: 0 };
    sum.calls += stats.calls;
    sum.errors += stats.errors;
    sum.blocked += stats.blocked;
    sum.durationMs += stats.durationMs;
    toolCalls[name] = sum;
  }
  return {
    turns: earlier.turns + record.turns,
    durationMs: earlier.durationMs + record.durationMs,
    usage: addUsage(structuredClone(earlier.usage), record.usage),
    toolCalls,
  };
}

/**
 * The `usage.json` object for a run; a resumed run's figures count the run it resumed too. Cost is
 * rounded to 1e-6 USD to drop float noise.
 */
export function usageJson(record: RunRecord, files: readonly ChangedFile[]): UsageJson {
  const totals = runTotals(record);
  const byTool: UsageJson["tool_calls"]["by_tool"] = {};
  let total = 0;
  for (const [name, stats] of Object.entries(totals.toolCalls)) {
    byTool[name] = {
      calls: stats.calls,
      errors: stats.errors,
      blocked: stats.blocked,
      duration_ms: Math.round(stats.durationMs),
    };
    total += stats.calls;
  }
  const earlier = record.resumedFrom;
  return {
    conclusion: record.conclusion,
    turns: totals.turns,
    duration_ms: Math.round(totals.durationMs),
    model: record.model,
    tokens: tokensOf(totals.usage),
    cost_usd: costOf(totals.usage),
    tool_calls: { total, by_tool: byTool },
    files_changed: files.length,
    ...(record.runId !== undefined && { run_id: record.runId }),
    ...(record.compactions !== undefined && { compactions: record.compactions }),
    ...(earlier && {
      resumed_from: {
        run_id: earlier.runId,
        conclusion: earlier.conclusion,
        turns: earlier.turns,
        duration_ms: Math.round(earlier.durationMs),
        tokens: tokensOf(earlier.usage),
        cost_usd: costOf(earlier.usage),
      },
    }),
  };
}

function tokensOf(usage: Usage): UsageJson["tokens"] {
  return {
    input: usage.input,
    output: usage.output,
    cache_read: usage.cacheRead,
    cache_write: usage.cacheWrite,
    total: usage.totalTokens,
  };
}

/** The cost in USD of a run and the runs it resumed, or null when unknown. */
export function costUsd(record: RunRecord): number | null {
  return costOf(runTotals(record).usage);
}

function costOf(usage: Usage): number | null {
  if (usage.costUnknown) return null;
  return Math.round(usage.cost.total * 1e6) / 1e6;
}

/** Writes `usage.json` (pretty-printed, trailing newline) into `dir` and returns its path. */
export async function writeUsageJson(
  dir: string,
  record: RunRecord,
  files: readonly ChangedFile[],
  redact: (text: string) => string = (text) => text,
): Promise<string> {
  const file = path.join(dir, USAGE_FILE);
  await writeFileAtomic(file, redact(`${JSON.stringify(usageJson(record, files), null, 2)}\n`));
  return file;
}
