/**
 * Which new-side lines a pull request's diff shows (the lines GitHub takes a review comment on),
 * read from real `git diff` output: several hunks, a new file, a deleted one, a rename with an
 * edit, quoted paths (spaces, non-ASCII, quotes), a last line without a newline, and content
 * that looks like a diff header.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { createDiffLineReader } from "../src/action/diff-lines.ts";
import { git } from "./helpers/pr-step.ts";

function linesOf(diff: string) {
  const reader = createDiffLineReader();
  for (const line of diff.split("\n")) reader.line(line);
  return reader.result();
}

const numbered = (count: number, edit: Record<number, string> = {}) =>
  `${Array.from({ length: count }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join("\n")}\n`;

describe("the diff's commentable lines", () => {
  test("hunks, new, deleted, renamed and oddly named files, from git's own output", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-diff-lines-"));
    await writeFile(path.join(dir, "two-hunks.txt"), numbered(60));
    await writeFile(path.join(dir, "gone.txt"), numbered(5));
    await writeFile(path.join(dir, "old name.txt"), numbered(30));
    await writeFile(path.join(dir, 'quo"te.txt'), "a\n");
    git(dir, "init", "-q");
    git(dir, "add", ".");
    git(dir, "commit", "-q", "-m", "base");
    const base = git(dir, "rev-parse", "HEAD");

    await writeFile(path.join(dir, "two-hunks.txt"), numbered(60, { 10: "changed 10", 50: "changed 50" }));
    await rm(path.join(dir, "gone.txt"));
    git(dir, "mv", "old name.txt", "new näme.txt");
    await writeFile(path.join(dir, "new näme.txt"), numbered(30, { 29: "changed 29" }));
    // Content that looks like headers, and a last line without a newline.
    await writeFile(path.join(dir, "added.txt"), "+++ b/fake.txt\ndiff --git a/x b/x\n@@ -1 +1 @@\nend");
    await writeFile(path.join(dir, 'quo"te.txt'), "a\nb\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "head");
    const diff = git(dir, "diff", "-M", base, "HEAD");

    expect(linesOf(diff)).toEqual({
      "two-hunks.txt": [
        [7, 13],
        [47, 53],
      ],
      "new näme.txt": [[26, 30]],
      "added.txt": [[1, 4]],
      'quo"te.txt': [[1, 2]],
    });
  });

  test("a hunk header without counts is one line; a pure deletion shows no new-side line", () => {
    const diff = [
      "diff --git a/one.txt b/one.txt",
      "--- a/one.txt",
      "+++ b/one.txt",
      "@@ -1 +1 @@",
      "-old",
      "+new",
      "diff --git a/cut.txt b/cut.txt",
      "--- a/cut.txt",
      "+++ b/cut.txt",
      "@@ -3,2 +2,0 @@",
      "-x",
      "-y",
    ].join("\n");
    expect(linesOf(diff)).toEqual({ "one.txt": [[1, 1]] });
  });
});
