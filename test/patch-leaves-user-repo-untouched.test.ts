import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { diffWorkspace } from "../src/output/diff.ts";
import { disposeSnapshot, snapshotWorkspace } from "../src/output/snapshot.ts";
import { gitRepo, sh, tempDir, writeFiles } from "./output-helpers.ts";

/**
 * Every file under `.git` with its content hash and, except for objects, its modification time.
 * (Git "freshens" the mtime of an object it finds already stored, even through alternates: a
 * metadata touch that changes no content.)
 */
function gitDirState(root: string): Record<string, string> {
  const state: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const relative = path.relative(root, full);
        const hash = createHash("sha1").update(fs.readFileSync(full)).digest("hex");
        const mtime = relative.startsWith(".git/objects/") ? "" : `@${fs.statSync(full).mtimeMs}`;
        state[relative] = `${hash}${mtime}`;
      }
    }
  };
  walk(path.join(root, ".git"));
  return state;
}

test("snapshot and diff write nothing into the user's .git: index, HEAD, refs, stash and objects unchanged", async () => {
  const root = gitRepo({ "a.txt": "a\n", "b.txt": "b\n" });
  sh(
    root,
    "git checkout -q -b feature && echo s >> a.txt && git stash -q && echo staged >> b.txt && git add b.txt",
  );
  sh(root, "echo untracked > u.txt && echo dirty >> a.txt");
  const status = sh(root, "git status --porcelain=v2 --branch && git stash list && git rev-parse HEAD");
  const before = gitDirState(root);

  const snapshot = await snapshotWorkspace(root);
  writeFiles(root, { "new.txt": "new content never seen by the user's repo\n", "a.txt": "rewritten\n" });
  const diff = await diffWorkspace(snapshot, root);
  await disposeSnapshot(snapshot);

  expect(diff.files.map((f) => f.path)).toEqual(["a.txt", "new.txt"]);
  expect(gitDirState(root)).toEqual(before);
  expect(fs.readdirSync(path.join(root, ".git", "objects")).length).toBeGreaterThan(2);
  fs.rmSync(path.join(root, "new.txt"));
  sh(root, "echo untracked > u.txt && printf 'a\\ndirty\\n' > a.txt");
  expect(sh(root, "git status --porcelain=v2 --branch && git stash list && git rev-parse HEAD")).toBe(status);
});

test("an outputs dir listed in .gitignore and passed as exclude is accepted and left out", async () => {
  const root = gitRepo({ ".gitignore": ".agent-run/\n", "a.txt": "a\n" });
  const outputs = path.join(root, ".agent-run");
  const snapshot = await snapshotWorkspace(root, { exclude: [outputs, "/somewhere/outside"] });
  writeFiles(root, { ".agent-run/patch.diff": "x", "a.txt": "b\n" });
  const diff = await diffWorkspace(snapshot, root);
  await disposeSnapshot(snapshot);
  expect(diff.files.map((f) => f.path)).toEqual(["a.txt"]);
});

test("an excluded outputs dir that git does not ignore stays out of the patch", async () => {
  const root = tempDir();
  writeFiles(root, { "a.txt": "a\n" });
  const snapshot = await snapshotWorkspace(root, { exclude: ["out dir[1]"] });
  writeFiles(root, { "out dir[1]/summary.md": "s", "out dir1/kept.md": "k" });
  const diff = await diffWorkspace(snapshot, root);
  await disposeSnapshot(snapshot);
  expect(diff.files.map((f) => f.path)).toEqual(["out dir1/kept.md"]);
});

test("disposeSnapshot removes the snapshot's temp directory", async () => {
  const root = gitRepo({ "a.txt": "a\n" });
  const snapshot = await snapshotWorkspace(root);
  expect(fs.existsSync(snapshot.tempDir)).toBe(true);
  expect(snapshot.tempDir.startsWith(root)).toBe(false);
  await disposeSnapshot(snapshot);
  expect(fs.existsSync(snapshot.tempDir)).toBe(false);
});

test("a workspace that does not exist is an error naming it", async () => {
  const missing = path.join(tempDir(), "nope");
  await expect(snapshotWorkspace(missing)).rejects.toThrow(/nope/);
});

test.skipIf(process.getuid?.() !== 0)(
  "a repository owned by another user is still read as a repository",
  async () => {
    const root = gitRepo({ "a.txt": "a\n" });
    sh(root, "chown -R nobody .");
    const snapshot = await snapshotWorkspace(root);
    writeFiles(root, { "a.txt": "b\n" });
    const diff = await diffWorkspace(snapshot, root);
    await disposeSnapshot(snapshot);
    expect(snapshot.inRepository).toBe(true);
    expect(diff.files.map((f) => f.path)).toEqual(["a.txt"]);
  },
);
