/** Summary statistics and the result row every scenario reports. */

export interface Spread {
  median: number;
  min: number;
  max: number;
  runs: number;
}

/** Median (the upper middle for an even count), min and max. Throws on an empty list. */
export function spread(values: number[]): Spread {
  if (values.length === 0) throw new Error("spread() needs at least one value");
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: sorted[Math.floor(sorted.length / 2)] as number,
    min: sorted[0] as number,
    max: sorted.at(-1) as number,
    runs: values.length,
  };
}

/** One line of the results table. */
export interface BenchRow {
  /** The scenario, e.g. "cold start". */
  scenario: string;
  /** What was measured, with its unit, e.g. "--version wall ms". */
  measure: string;
  /** Median, formatted. */
  value: string;
  /** "min–max over N runs", or a free note. */
  spread: string;
  /** The target and whether it was met, e.g. "< 150 ✓"; empty when there is none. */
  target: string;
}

/** Formats a figure with `digits` decimals (default: 0 at or above 10, else 1). */
export function fmt(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return "n/a";
  return value.toFixed(digits ?? (Math.abs(value) >= 10 ? 0 : 1));
}

/** A row from measured values: median as the value, "min–max (N runs)" as the spread. */
export function rowOf(
  scenario: string,
  measure: string,
  values: number[],
  target?: { below: number; label?: string },
  digits?: number,
): BenchRow {
  const s = spread(values);
  const range = s.runs > 1 ? `${fmt(s.min, digits)}–${fmt(s.max, digits)} (${s.runs} runs)` : "1 run";
  return {
    scenario,
    measure,
    value: fmt(s.median, digits),
    spread: range,
    target: target
      ? `${target.label ?? `< ${target.below}`} ${s.median < target.below ? "met" : "MISSED"}`
      : "",
  };
}

/** Renders rows as a Markdown table (what docs/benchmarks.md and the README quote). */
export function markdownTable(rows: BenchRow[]): string {
  const header = ["scenario", "measure", "median", "spread", "target"];
  const cells = rows.map((r) => [r.scenario, r.measure, r.value, r.spread, r.target]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

/**
 * The ratio of two medians (`ours` / `bare`), e.g. "2.1" for a runner taking 2.1 times the bare
 * loop's time; with `atMost`, the target "≤ N×" and whether it was met.
 */
export function ratioRow(
  scenario: string,
  measure: string,
  ours: number[],
  bare: number[],
  atMost?: number,
): BenchRow {
  const a = spread(ours).median;
  const b = spread(bare).median;
  const ratio = a / b;
  return {
    scenario,
    measure,
    value: fmt(ratio, 2),
    spread: `medians ${fmt(a, a < 10 ? 2 : 0)} / ${fmt(b, b < 10 ? 2 : 0)}`,
    target: atMost === undefined ? "" : `≤ ${atMost}× ${ratio <= atMost ? "met" : "MISSED"}`,
  };
}
