/**
 * Finding the text an edit replaces.
 *
 * Rule: an exact match is tried first. When there is none, both texts are normalized and matched
 * again: curly quotes become straight, Unicode dashes become "-", non-breaking and other Unicode
 * spaces become " ", whitespace at the start and end of each line is ignored and runs of spaces or
 * tabs inside a line count as one. A normalized match maps back to the original text, widened to
 * the start of its line when the searched text began with indentation (so the replacement's own
 * indentation is not added to the file's).
 */

export interface MatchRange {
  start: number;
  end: number;
}

export type MatchOutcome =
  | { ok: true; ranges: MatchRange[]; fuzzy: boolean }
  | { ok: false; problem: "none" }
  | { ok: false; problem: "many"; ranges: MatchRange[]; fuzzy: boolean };

const QUOTES_SINGLE = /[\u2018\u2019\u201a\u201b\u2032]/;
const QUOTES_DOUBLE = /[\u201c\u201d\u201e\u201f\u2033]/;
const DASHES = /[\u2010-\u2015\u2212]/;
const SPACES = /[ \t\r\f\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]/;

interface Normalized {
  text: string;
  /** Index in the original text of each normalized character. */
  map: Int32Array;
}

/** Normalizes for tolerant matching, remembering where each character came from. */
export function normalizeForMatch(text: string): Normalized {
  const map = new Int32Array(text.length + 1);
  let out = "";
  let parts: string[] = [];
  let length = 0;
  let atLineStart = true;
  let pendingSpace = -1;
  const emit = (char: string, from: number) => {
    parts.push(char);
    map[length++] = from;
    if (parts.length > 4096) {
      out += parts.join("");
      parts = [];
    }
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === "\n") {
      pendingSpace = -1;
      emit("\n", i);
      atLineStart = true;
      continue;
    }
    if (SPACES.test(char)) {
      if (!atLineStart && pendingSpace === -1) pendingSpace = i;
      continue;
    }
    if (pendingSpace !== -1) {
      emit(" ", pendingSpace);
      pendingSpace = -1;
    }
    atLineStart = false;
    if (QUOTES_SINGLE.test(char)) emit("'", i);
    else if (QUOTES_DOUBLE.test(char)) emit('"', i);
    else if (DASHES.test(char)) emit("-", i);
    else emit(char, i);
  }
  out += parts.join("");
  return { text: out, map: map.subarray(0, length) };
}

function allIndexes(haystack: string, needle: string, limit: number): number[] {
  const found: number[] = [];
  if (needle.length === 0) return found;
  let index = haystack.indexOf(needle);
  while (index !== -1 && found.length < limit) {
    found.push(index);
    index = haystack.indexOf(needle, index + needle.length);
  }
  return found;
}

/** Finds `oldText` in `content`: exactly, else tolerantly. `many` when it occurs more than once. */
export function findMatches(
  content: string,
  oldText: string,
  options: { replaceAll?: boolean } = {},
): MatchOutcome {
  const limit = options.replaceAll ? Number.POSITIVE_INFINITY : 50;
  const exact = allIndexes(content, oldText, limit).map((start) => ({ start, end: start + oldText.length }));
  if (exact.length === 1 || (exact.length > 1 && options.replaceAll))
    return { ok: true, ranges: exact, fuzzy: false };
  if (exact.length > 1) return { ok: false, problem: "many", ranges: exact, fuzzy: false };

  const needle = normalizeForMatch(oldText).text.replace(/^\n+|\n+$/g, "");
  if (needle.trim().length === 0) return { ok: false, problem: "none" };
  const haystack = normalizeForMatch(content);
  const found = allIndexes(haystack.text, needle, limit);
  if (found.length === 0) return { ok: false, problem: "none" };
  const leadingIndent = /^[ \t]/.test(oldText.replace(/^\n+/, ""));
  const ranges = found.map((index) => {
    let start = haystack.map[index]!;
    const end = haystack.map[index + needle.length - 1]! + 1;
    if (leadingIndent) {
      let lineStart = start;
      while (lineStart > 0 && SPACES.test(content[lineStart - 1]!) && content[lineStart - 1] !== "\n")
        lineStart--;
      if (lineStart === 0 || content[lineStart - 1] === "\n") start = lineStart;
    }
    return { start, end };
  });
  if (ranges.length === 1 || options.replaceAll) return { ok: true, ranges, fuzzy: true };
  return { ok: false, problem: "many", ranges, fuzzy: true };
}

/** 1-based line number of a character offset. */
export function lineOf(content: string, offset: number): number {
  let line = 1;
  for (
    let index = content.indexOf("\n");
    index !== -1 && index < offset;
    index = content.indexOf("\n", index + 1)
  ) {
    line++;
  }
  return line;
}

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  const clean = text.toLowerCase().replace(/\s+/g, " ").trim();
  for (let i = 0; i < clean.length - 1; i++) {
    const gram = clean.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

function dice(a: Map<string, number>, b: Map<string, number>, sizeA: number, sizeB: number): number {
  if (sizeA + sizeB === 0) return 0;
  let shared = 0;
  for (const [gram, count] of a) shared += Math.min(count, b.get(gram) ?? 0);
  return (2 * shared) / (sizeA + sizeB);
}

/**
 * The places in `content` that look most like `oldText` (by its first non-empty line), best
 * first: each a 1-based line number and the lines there, numbered, as many as `oldText` has (max 6).
 */
export function nearestCandidates(
  content: string,
  oldText: string,
  count = 3,
): { line: number; text: string }[] {
  const oldLines = oldText.split("\n");
  const probe = oldLines.find((line) => line.trim().length > 0)?.trim() ?? "";
  if (probe.length === 0) return [];
  const probeGrams = bigrams(probe);
  const probeSize = Math.max(0, probe.replace(/\s+/g, " ").length - 1);
  const lines = content.split("\n");
  const scored: { line: number; score: number }[] = [];
  const maxScan = Math.min(lines.length, 200_000);
  for (let i = 0; i < maxScan; i++) {
    const text = lines[i]!.trim();
    if (text.length === 0 || Math.abs(text.length - probe.length) > probe.length * 2 + 20) continue;
    const score = dice(
      probeGrams,
      bigrams(text),
      probeSize,
      Math.max(0, text.replace(/\s+/g, " ").length - 1),
    );
    if (score >= 0.4) scored.push({ line: i + 1, score });
  }
  scored.sort((a, b) => b.score - a.score || a.line - b.line);
  const span = Math.min(Math.max(1, oldLines.length), 6);
  return scored.slice(0, count).map(({ line }) => ({
    line,
    text: lines
      .slice(line - 1, line - 1 + span)
      .map((value, offset) => `${line + offset}\t${value.length > 200 ? `${value.slice(0, 200)}...` : value}`)
      .join("\n"),
  }));
}
