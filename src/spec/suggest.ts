/** Inputs longer than this get no suggestion: nobody misspells a 100-character name. */
export const MAX_SUGGEST_LENGTH = 64;

/**
 * The closest candidate to `input` by edit distance, or undefined when nothing is close enough
 * (distance at most 2, or a third of the input's length for longer words). Case-insensitive.
 * Costs at most one small distance per candidate of a similar length: inputs and candidates
 * longer than `MAX_SUGGEST_LENGTH` are not compared.
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  if (input.length > MAX_SUGGEST_LENGTH) return undefined;
  const lower = input.toLowerCase();
  // A truncated name (`before_tool` for `before_tool_call`) is a better guess than a near one.
  if (input.length >= 4) {
    let prefixed: string | undefined;
    let count = 0;
    for (const candidate of candidates) {
      if (candidate.length <= MAX_SUGGEST_LENGTH && candidate.toLowerCase().startsWith(lower)) {
        prefixed = candidate;
        if (++count > 1) break;
      }
    }
    if (count === 1) return prefixed;
  }
  const limit = Math.max(2, Math.floor(input.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    // The distance is at least the difference in length.
    if (Math.abs(candidate.length - input.length) > Math.min(limit, bestDistance - 1)) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit && bestDistance < input.length ? best : undefined;
}

/** Levenshtein distance with transpositions counted as one edit (three rows, not a matrix). */
export function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, before[j - 2]! + 1);
      }
      row[j] = value;
    }
    [before, previous, row] = [previous, row, before];
  }
  return previous[b.length]!;
}
