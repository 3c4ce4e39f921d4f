/** `usage.json` (DESIGN §5): the run's conclusion, turns, tokens, cost, tool calls and changed files. */
import path from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import type { ChangedFile, Conclusion, RunRecord } from "./types.ts";

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
}

/** The `usage.json` object for a run. Cost is rounded to 1e-6 USD to drop float noise. */
export function usageJson(record: RunRecord, files: readonly ChangedFile[]): UsageJson {
  const byTool: UsageJson["tool_calls"]["by_tool"] = {};
  let total = 0;
  for (const [name, stats] of Object.entries(record.toolCalls)) {
    byTool[name] = {
      calls: stats.calls,
      errors: stats.errors,
      blocked: stats.blocked,
      duration_ms: Math.round(stats.durationMs),
    };
    total += stats.calls;
  }
  const { usage } = record;
  return {
    conclusion: record.conclusion,
    turns: record.turns,
    duration_ms: Math.round(record.durationMs),
    model: record.model,
    tokens: {
      input: usage.input,
      output: usage.output,
      cache_read: usage.cacheRead,
      cache_write: usage.cacheWrite,
      total: usage.totalTokens,
    },
    cost_usd: costUsd(record),
    tool_calls: { total, by_tool: byTool },
    files_changed: files.length,
  };
}

/** The run's cost in USD, or null when unknown. */
export function costUsd(record: RunRecord): number | null {
  if (record.usage.costUnknown) return null;
  return Math.round(record.usage.cost.total * 1e6) / 1e6;
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
