/**
 * Which lines of each file's new side a unified diff shows, read a line at a time: the ranges of
 * the hunks' new sides (`@@ -a,b +c,d @@` shows lines c to c+d-1, context and added), which are
 * the lines GitHub accepts a review comment on (side RIGHT). Hunk bodies are counted, so a line
 * of content that looks like a header (`+++ x`, `diff --git`) is never read as one. Paths are
 * the new side's (`+++ b/path`, C-quoted ones unquoted); a deleted file has none.
 */

/** New-side line ranges `[first, last]`, by path relative to the repository's root. */
export type CommentableLines = Record<string, Array<[number, number]>>;

export interface DiffLineReader {
  /** One line of the diff, without its newline. */
  line(text: string): void;
  /** The path of the file the last line belongs to; undefined before the first `diff --git`. */
  readonly file: string | undefined;
  result(): CommentableLines;
}

export function createDiffLineReader(): DiffLineReader {
  const lines: CommentableLines = Object.create(null) as CommentableLines;
  let file: string | undefined;
  let header: string | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  return {
    line(text) {
      if (oldLeft > 0 || newLeft > 0) {
        const mark = text[0];
        if (mark === " " || mark === undefined) {
          oldLeft--;
          newLeft--;
          return;
        }
        if (mark === "-") {
          oldLeft--;
          return;
        }
        if (mark === "+") {
          newLeft--;
          return;
        }
        if (mark === "\\") return;
        // Not a body line: the hunk was shorter than its header said.
        oldLeft = 0;
        newLeft = 0;
      }
      if (text.startsWith("diff --git ")) {
        header = headerPath(text);
        file = header;
        return;
      }
      if (text.startsWith("+++ ")) {
        // git ends the line with a tab when the path holds a space (as GNU diff does).
        const target = text.slice(4).replace(/\t$/, "");
        file = target === "/dev/null" ? undefined : stripPrefix(unquote(target));
        return;
      }
      const hunk = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(text);
      if (!hunk) return;
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      const first = Number(hunk[2]);
      const count = hunk[3] === undefined ? 1 : Number(hunk[3]);
      newLeft = count;
      if (file === undefined || count === 0) return;
      const ranges = lines[file] ?? [];
      ranges.push([first, first + count - 1]);
      lines[file] = ranges;
    },
    get file() {
      return file;
    },
    result: () => lines,
  };
}

/** The new path of a `diff --git a/x b/y` line when both are plain (for the files without a `+++` line). */
function headerPath(text: string): string | undefined {
  const rest = text.slice("diff --git ".length);
  if (rest.startsWith('"')) return undefined;
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.slice(0, half).slice(2) === rest.slice(half + 1).slice(2)) {
    return rest.slice(half + 3);
  }
  return undefined;
}

function stripPrefix(target: string): string {
  return target.startsWith("b/") ? target.slice(2) : target;
}

/** Undoes git's C-style quoting of a path (`"a\"b\303\251"`); a path without quotes is returned as is. */
export function unquote(text: string): string {
  if (!(text.startsWith('"') && text.endsWith('"') && text.length >= 2)) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  const simple: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };
  for (let i = 0; i < body.length; i++) {
    const char = body[i] ?? "";
    if (char !== "\\") {
      bytes.push(...Buffer.from(char, "utf8"));
      continue;
    }
    const next = body[i + 1] ?? "";
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
