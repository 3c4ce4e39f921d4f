/**
 * The diffstat of a patch, as `git diff --stat` prints it: one line per file, then the totals.
 * Linear in the number of files and never spreads them into one call (a run may change millions).
 */
import type { ChangedFile } from "./types.ts";

/** Widest `+`/`-` bar in the diffstat, in characters. */
export const DIFFSTAT_BAR_WIDTH = 40;

/**
 * A `git diff --stat`-like text: one line per file (the first `maxFiles` files only, when given)
 * and a totals line over every file; `""` for no files.
 */
export function formatDiffstat(
  files: readonly ChangedFile[],
  barWidth = DIFFSTAT_BAR_WIDTH,
  maxFiles = Number.POSITIVE_INFINITY,
): string {
  if (files.length === 0) return "";
  const listed = files.length > maxFiles ? files.slice(0, maxFiles) : files;
  const names = listed.map((file) => (file.oldPath ? `${file.oldPath} => ${file.path}` : file.path));
  let nameWidth = 0;
  let maxChange = 0;
  for (const [index, file] of listed.entries()) {
    nameWidth = Math.max(nameWidth, names[index]?.length ?? 0);
    maxChange = Math.max(maxChange, file.additions + file.deletions);
  }
  let additions = 0;
  let deletions = 0;
  for (const file of files) {
    additions += file.additions;
    deletions += file.deletions;
  }
  const countWidth = String(maxChange).length;
  const scale = maxChange > barWidth ? barWidth / maxChange : 1;
  const lines = listed.map((file, index) => {
    const name = (names[index] ?? "").padEnd(nameWidth);
    if (file.binary) return ` ${name} | Bin`;
    const total = file.additions + file.deletions;
    const bar = `${"+".repeat(scaled(file.additions, scale))}${"-".repeat(scaled(file.deletions, scale))}`;
    return ` ${name} | ${String(total).padStart(countWidth)}${bar ? ` ${bar}` : ""}`;
  });
  let totals = ` ${files.length} file${files.length === 1 ? "" : "s"} changed`;
  totals += `, ${additions} insertion${additions === 1 ? "" : "s"}(+)`;
  totals += `, ${deletions} deletion${deletions === 1 ? "" : "s"}(-)`;
  lines.push(totals);
  return `${lines.join("\n")}\n`;
}

function scaled(count: number, scale: number): number {
  if (count === 0) return 0;
  return Math.max(1, Math.round(count * scale));
}
