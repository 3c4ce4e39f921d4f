/**
 * Diffs of an edit: a unified patch (via the `diff` package) and a compact line-numbered diff.
 *
 * Only the changed window is diffed: the common prefix and suffix of the two texts are skipped
 * (keeping 3 lines of context), so editing one line of a 20 MB file costs a scan, not a full diff.
 */
import { FILE_HEADERS_ONLY, formatPatch, type StructuredPatch, structuredPatch } from "diff";

const CONTEXT_LINES = 3;

export interface EditDiff {
  /** Unified diff with `a/` and `b/` headers, `git apply`-able for the edited file. */
  patch: string;
  /** Changed lines only, numbered: `-12 old` / `+12 new`, hunks separated by `...`. */
  diff: string;
  /** 1-based line of the first change in the new text; undefined when nothing changed. */
  firstChangedLine: number | undefined;
}

function lineStartBefore(text: string, index: number): number {
  return text.lastIndexOf("\n", index - 1) + 1;
}

function moveBackLines(text: string, index: number, lines: number): number {
  let at = index;
  for (let i = 0; i < lines && at > 0; i++) at = lineStartBefore(text, at - 1);
  return at;
}

function moveForwardLines(text: string, index: number, lines: number): number {
  let at = index;
  for (let i = 0; i < lines && at < text.length; i++) {
    const next = text.indexOf("\n", at);
    at = next === -1 ? text.length : next + 1;
  }
  return at;
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1 && index < end; index = text.indexOf("\n", index + 1))
    count++;
  return count;
}

/**
 * Diffs `before` and `after` of the file at `path` (root-relative, forward slashes). When they are
 * a window of the file, `lineOffset` is the number of lines above it.
 */
export function diffEdit(path: string, before: string, after: string, lineOffset = 0): EditDiff {
  if (before === after) return { patch: "", diff: "", firstChangedLine: undefined };
  let prefix = 0;
  const shortest = Math.min(before.length, after.length);
  while (prefix < shortest && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (
    suffix < shortest - prefix &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
  ) {
    suffix++;
  }
  const windowStart = moveBackLines(before, lineStartBefore(before, prefix), CONTEXT_LINES);
  const beforeEnd = moveForwardLines(before, before.length - suffix, CONTEXT_LINES + 1);
  const afterEnd = moveForwardLines(after, after.length - suffix, CONTEXT_LINES + 1);
  const linesAbove = lineOffset + countNewlines(before, windowStart);
  const structured = structuredPatch(
    `a/${path}`,
    `b/${path}`,
    before.slice(windowStart, beforeEnd),
    after.slice(windowStart, afterEnd),
    undefined,
    undefined,
    { context: CONTEXT_LINES },
  );
  const shifted: StructuredPatch = {
    ...structured,
    hunks: structured.hunks.map((hunk) => ({
      ...hunk,
      oldStart: hunk.oldStart + linesAbove,
      newStart: hunk.newStart + linesAbove,
    })),
  };
  return {
    patch: formatPatch(shifted, FILE_HEADERS_ONLY),
    diff: compactDiff(shifted),
    firstChangedLine: firstChanged(shifted),
  };
}

function firstChanged(patch: StructuredPatch): number | undefined {
  const hunk = patch.hunks[0];
  if (!hunk) return undefined;
  let newLine = hunk.newStart;
  for (const line of hunk.lines) {
    if (line.startsWith("+") || line.startsWith("-")) return Math.max(1, newLine);
    if (line.startsWith(" ")) newLine++;
  }
  return hunk.newStart;
}

function compactDiff(patch: StructuredPatch): string {
  const out: string[] = [];
  for (const hunk of patch.hunks) {
    if (out.length > 0) out.push("...");
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === "-") out.push(`-${oldLine++} ${text}`);
      else if (mark === "+") out.push(`+${newLine++} ${text}`);
      else if (mark === " ") {
        out.push(` ${newLine} ${text}`);
        oldLine++;
        newLine++;
      }
    }
  }
  return out.join("\n");
}
