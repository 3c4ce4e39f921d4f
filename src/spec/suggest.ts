/**
 * The closest candidate to `input` by edit distance, or undefined when nothing is close enough
 * (distance at most 2, or a third of the input's length for longer words). Case-insensitive.
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  // A truncated name (`before_tool` for `before_tool_call`) is a better guess than a near one.
  const prefixed =
    input.length >= 4 ? candidates.filter((c) => c.toLowerCase().startsWith(input.toLowerCase())) : [];
  if (prefixed.length === 1) return prefixed[0];
  const limit = Math.max(2, Math.floor(input.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit && bestDistance < input.length ? best : undefined;
}

/** Levenshtein distance with transpositions counted as one edit. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i]!;
      const prev = d[i - 1]!;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}
