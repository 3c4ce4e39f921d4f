/**
 * Line counts of a git patch read once, a chunk at a time: for each `diff --git` section, the lines
 * it adds and deletes and whether it is binary. Counting while the patch is copied saves git a
 * second diff of every file (`--numstat` diffs each file again, seconds for a large one).
 *
 * Hunk lines are told from headers by the hunk's own line counts (`@@ -a,b +c,d @@`), never by
 * their first characters alone, so a deleted line reading `-- x` is not taken for a header. Only
 * header lines are held in memory, cut at HEADER_LINE_LIMIT; a hunk line of any length costs nothing.
 */

/** What one section of a patch changes. */
export interface SectionStats {
  additions: number;
  deletions: number;
  binary: boolean;
}

export interface PatchScanner {
  /** Feeds the next chunk of the patch, decoded as latin1 (one char per byte). */
  write(chunk: string): void;
  /** The sections seen, in order. */
  end(): SectionStats[];
}

/** Characters of a header line kept: enough for every header git writes but a path. */
export const HEADER_LINE_LIMIT = 4096;

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;
/** First characters of the header lines that count: `diff --git`, `@@`, `GIT binary patch`, `Binary files`. */
const HEADER_STARTS = new Set(["d", "@", "G", "B"]);

export function createPatchScanner(): PatchScanner {
  const sections: SectionStats[] = [];
  let oldLeft = 0;
  let newLeft = 0;
  let inHunk = false;
  let header = "";

  const headerLine = (line: string) => {
    if (line.startsWith("diff --git ")) {
      sections.push({ additions: 0, deletions: 0, binary: false });
      return;
    }
    const section = sections.at(-1);
    if (!section) return;
    const hunk = HUNK_HEADER.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      inHunk = oldLeft > 0 || newLeft > 0;
    } else if (line === "GIT binary patch" || line.startsWith("Binary files ")) {
      section.binary = true;
    }
  };

  const hunkLine = (first: string) => {
    const section = sections.at(-1);
    if (!section) return;
    if (first === "+") {
      section.additions++;
      newLeft--;
    } else if (first === "-") {
      section.deletions++;
      oldLeft--;
    } else if (first !== "\\") {
      oldLeft--;
      newLeft--;
    }
    if (oldLeft <= 0 && newLeft <= 0) inHunk = false;
  };

  // What the current line is, from its first character: undefined before it is seen; "skip" for a
  // line of no interest (the base85 lines of a binary patch, most of all).
  let line: "hunk" | "header" | "skip" | undefined;

  return {
    write(chunk) {
      let index = 0;
      while (index < chunk.length) {
        const newline = chunk.indexOf("\n", index);
        const end = newline === -1 ? chunk.length : newline;
        if (line === undefined) {
          const first = index === end ? "" : chunk.charAt(index);
          if (inHunk) {
            line = "hunk";
            // An empty line inside a hunk is an empty context line (what `git apply` takes it for).
            hunkLine(first === "" ? " " : first);
          } else {
            line = HEADER_STARTS.has(first) ? "header" : "skip";
          }
        }
        if (line === "header" && header.length < HEADER_LINE_LIMIT) {
          header += chunk.slice(index, Math.min(end, index + HEADER_LINE_LIMIT - header.length));
        }
        if (newline === -1) return;
        if (line === "header") headerLine(header);
        header = "";
        line = undefined;
        index = newline + 1;
      }
    },
    end() {
      if (line === "header") headerLine(header);
      line = undefined;
      header = "";
      return sections;
    },
  };
}
