/** Turns the free-form output of bench/tools.ts and bench/patch.ts into table rows. */
import type { BenchRow } from "./e2e/stats.ts";

/**
 * Rows from a bench that prints free-form lines: `label: figures`, and `heading:` lines that
 * prefix the indented lines under them; `median X (a, b, …)` splits into median and spread.
 */
export function rowsFromText(suite: string, stdout: string): BenchRow[] {
  const rows: BenchRow[] = [];
  let heading = "";
  for (const raw of stdout.split("\n")) {
    const line = raw.trimEnd();
    if (line.trim() === "") continue;
    if (!/^\s/.test(line)) heading = "";
    if (line.endsWith(":")) {
      heading = line.slice(0, -1).trim();
      continue;
    }
    const match = /^\s*(.+?):\s+(.*)$/.exec(line);
    const label = match?.[1] ?? line.trim();
    const rest = match?.[2] ?? "";
    const median = /^median (\S+ \S+) \(([^)]*)\)\s*(.*)$/.exec(rest);
    rows.push({
      scenario: `${suite}: ${heading || label}`,
      measure: heading ? label : "",
      value: median ? (median[1] ?? "") : rest,
      spread: median ? `${median[2]}${median[3] ? `; ${median[3]}` : ""}` : "",
      target: "",
    });
  }
  return rows;
}
