import type { Model } from "./types.ts";

/** Small, pure formatters for people: counts, costs and durations, the same in the summary, the terminal and messages. */

/** `1234567` → `"1,234,567"`. */
export function formatCount(count: number): string {
  const rounded = Math.round(count);
  // What toLocaleString("en-US") gives, without its first call's ICU set-up (~10 ms at the end
  // of every run, for the summary).
  if (!Number.isSafeInteger(rounded)) return rounded.toLocaleString("en-US");
  return String(rounded).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** USD with 4 decimals (`"$0.0123"`), or `"unknown"` when the price is not known. */
export function formatCost(costUsd: number | null): string {
  return costUsd === null ? "unknown" : `$${costUsd.toFixed(4)}`;
}

/** Milliseconds as `"850 ms"`, `"12.3 s"`, `"4m 05s"` or `"1h 02m"`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const totalSeconds = Math.round(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) return `${minutes}m ${String(totalSeconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/** `"provider:id"`, the form used in summaries, events, messages and replay files. */
export function modelLabel(model: Pick<Model, "provider" | "id">): string {
  return `${model.provider}:${model.id}`;
}
