import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { diffWorkspace } from "../src/output/diff.ts";
import {
  disposeSnapshot,
  snapshotWorkspace,
  updateTree,
  type WorkspaceSnapshot,
} from "../src/output/snapshot.ts";
import { copyWithoutGit, gitRepo, tempDir, treeState, writeFiles } from "./output-helpers.ts";

const snapshots: WorkspaceSnapshot[] = [];
afterEach(async () => {
  for (const snapshot of snapshots.splice(0)) await disposeSnapshot(snapshot);
});

/**
 * Snapshots `root`, runs `change` (each step after a checkpoint when `checkpoint` says so), diffs,
 * applies the patch to a clean copy of the start state and compares it with the end state.
 */
async function roundTrip(
  root: string,
  steps: Array<(dir: string) => void>,
  { skip = [] as string[], checkpoint = false } = {},
) {
  const snapshot = await snapshotWorkspace(root);
  snapshots.push(snapshot);
  const copy = copyWithoutGit(root);
  for (const step of steps) {
    step(root);
    if (checkpoint) await updateTree(snapshot);
  }
  const diff = await diffWorkspace(snapshot, root);
  const patchFile = path.join(tempDir(), "patch.diff");
  fs.writeFileSync(patchFile, diff.patch, diff.patchEncoding ?? "utf8");
  if (diff.patch !== "") execFileSync("git", ["apply", patchFile], { cwd: copy });
  expect(treeState(copy, skip)).toEqual(treeState(root, skip));
  return { diff, notes: [...snapshot.notes] };
}

const IGNORES = "*.log\nbuild/\n.env\n";

describe("files the run un-ignores: the patch still applies to the start state", () => {
  test("an ignored file the run un-ignores and leaves alone stays out of the patch", async () => {
    const root = gitRepo({ ".gitignore": IGNORES, "a.txt": "a\n" });
    writeFiles(root, { "debug.log": "old log\n", "build/out.js": "built\n" });
    const { diff, notes } = await roundTrip(root, [
      (dir) => writeFiles(dir, { ".gitignore": "# nothing ignored any more\n" }),
    ]);
    expect(diff.files.map((f) => f.path)).toEqual([".gitignore"]);
    expect(notes).toEqual([]);
  });

  test("an ignored file the run un-ignores and edits: the patch holds the edit, not a new file", async () => {
    const root = gitRepo({ ".gitignore": IGNORES, "a.txt": "a\n" });
    writeFiles(root, { "debug.log": "line 1\nline 2\n" });
    const { diff } = await roundTrip(root, [
      (dir) => writeFiles(dir, { ".gitignore": "build/\n", "debug.log": "line 1\nline 2 edited\n" }),
    ]);
    expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual([
      "modified .gitignore",
      "modified debug.log",
    ]);
    expect(diff.patch).toContain("-line 2\n+line 2 edited\n");
  });

  test("an ignored file the run deletes (rules rewritten or not) stays out: its content is never published", async () => {
    const root = gitRepo({ ".gitignore": IGNORES, "a.txt": "a\n" });
    writeFiles(root, { ".env": "API_KEY=not-in-any-commit\n", "old.log": "old log\n" });
    const { diff, notes } = await roundTrip(
      root,
      [
        (dir) => writeFiles(dir, { ".gitignore": "build/\n" }),
        (dir) => fs.rmSync(path.join(dir, ".env")),
        (dir) => fs.rmSync(path.join(dir, "old.log")),
      ],
      { skip: [".env", "old.log"] },
    );
    expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual(["modified .gitignore"]);
    expect(diff.patch).not.toContain("not-in-any-commit");
    expect(notes).toContain(
      ".env was ignored by git at the start and the run deleted it; patch.diff leaves it out",
    );
  });

  test("an ignored folder un-ignored, then edited after a checkpoint: the edit is in the patch", async () => {
    const root = gitRepo({ ".gitignore": IGNORES, "a.txt": "a\n" });
    writeFiles(root, { "build/out.js": "v1\n", "build/map.js": "m\n" });
    const { diff } = await roundTrip(
      root,
      [
        (dir) => writeFiles(dir, { ".gitignore": "*.log\n" }),
        (dir) => writeFiles(dir, { "build/out.js": "v2\n" }),
      ],
      { checkpoint: true },
    );
    expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual([
      "modified .gitignore",
      "modified build/out.js",
    ]);
  });

  test("an ignored folder un-ignored and changed at once is left out, and a note says so", async () => {
    const root = gitRepo({ ".gitignore": IGNORES, "a.txt": "a\n" });
    writeFiles(root, { "build/out.js": "v1\n" });
    const { diff, notes } = await roundTrip(
      root,
      [(dir) => writeFiles(dir, { ".gitignore": "*.log\n", "build/out.js": "v2\n", "build/new.js": "n\n" })],
      { skip: ["build"] },
    );
    expect(diff.files.map((f) => f.path)).toEqual([".gitignore"]);
    expect(notes).toEqual([
      "build/ was ignored by git at the start; the run un-ignored and changed it, so its start content is unknown and patch.diff leaves it out",
    ]);
  });

  test("a new file matching a pattern the run removed is a new file in the patch", async () => {
    const root = gitRepo({ ".gitignore": IGNORES, "a.txt": "a\n" });
    writeFiles(root, { "old.log": "kept as it was\n" });
    const { diff } = await roundTrip(root, [
      (dir) => writeFiles(dir, { ".gitignore": "build/\n", "fresh.log": "new\n" }),
    ]);
    expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual([
      "modified .gitignore",
      "added fresh.log",
    ]);
  });
});

describe("files the run newly ignores", () => {
  test("a tracked file the run ignores and edits keeps its edit in the patch; a new ignored file stays out", async () => {
    const root = gitRepo({ ".gitignore": "", "config.json": "{}\n", "a.txt": "a\n" });
    const { diff } = await roundTrip(
      root,
      [
        (dir) =>
          writeFiles(dir, {
            ".gitignore": "config.json\ncache/\n",
            "config.json": '{"x":1}\n',
            "cache/blob.bin": "generated\n",
          }),
      ],
      { skip: ["cache"] },
    );
    expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual([
      "modified .gitignore",
      "modified config.json",
    ]);
  });

  test("a file the user tracks although it matches .gitignore is in the snapshot, and its edit in the patch", async () => {
    const root = gitRepo({ ".gitignore": "", "vendor.lock": "v1\n" });
    writeFiles(root, { ".gitignore": "*.lock\n" });
    const { diff } = await roundTrip(root, [(dir) => writeFiles(dir, { "vendor.lock": "v2\n" })]);
    expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual(["modified vendor.lock"]);
  });
});
