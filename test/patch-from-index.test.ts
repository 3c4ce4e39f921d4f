import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type ComputedPatch, computePatch, THE_INDEX } from "../src/output/diff.ts";
import {
  disposeSnapshot,
  snapshotWorkspace,
  updateIndex,
  updateTree,
  type WorkspaceSnapshot,
} from "../src/output/snapshot.ts";
import { copyWithoutGit, gitRepo, tempDir, writeFiles } from "./output-helpers.ts";

/**
 * The end of a run brings the private index up to date without writing its tree (updateIndex),
 * and diffs the index itself (computePatch with THE_INDEX) unless the index is one a tree was
 * written from. That patch must be the one the tree would have given, byte for byte, and the tree
 * updateIndex names must be the tree of the index as it is.
 */
const snapshots: WorkspaceSnapshot[] = [];
afterEach(async () => {
  for (const snapshot of snapshots.splice(0)) await disposeSnapshot(snapshot);
});

async function snapshot(root: string): Promise<WorkspaceSnapshot> {
  const taken = await snapshotWorkspace(root);
  snapshots.push(taken);
  return taken;
}

const BINARY = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
const START = {
  "src/keep.txt": "keep\n",
  "src/edit.txt": "one\ntwo\nthree\n",
  "src/gone.txt": "to be deleted\n",
  "src/moved.txt": `${"a line that makes the rename detectable\n".repeat(20)}`,
  "src/run.sh": "echo run\n",
  "src/data.bin": BINARY,
};

/** Every kind of change a patch holds: edit, add, delete, rename, mode, symlink, binary. */
function changeAll(root: string): void {
  writeFiles(root, { "src/edit.txt": "one\nTWO\nthree\n", "src/new.txt": "new\n" });
  fs.rmSync(path.join(root, "src/gone.txt"));
  fs.renameSync(path.join(root, "src/moved.txt"), path.join(root, "src/renamed.txt"));
  fs.chmodSync(path.join(root, "src/run.sh"), 0o755);
  fs.symlinkSync("keep.txt", path.join(root, "src/link"));
  const changed = Buffer.from(BINARY);
  changed[100] = 0;
  fs.writeFileSync(path.join(root, "src/data.bin"), changed);
}

async function bytes(patch: ComputedPatch): Promise<string> {
  return patch.file === "" ? "" : fs.readFileSync(patch.file, "latin1");
}

describe("the patch of the index", () => {
  for (const where of ["a repository's subfolder", "a plain folder"] as const) {
    test(`is the patch of its tree, in ${where}`, async () => {
      const repo = where === "a plain folder" ? tempDir() : gitRepo({ "top.txt": "top\n" });
      writeFiles(repo, START);
      const root = where === "a plain folder" ? repo : path.join(repo, "src");
      const taken = await snapshot(root);
      changeAll(repo);

      expect(await updateIndex(taken)).toBeUndefined();
      const fromIndex = await computePatch(taken, THE_INDEX);
      const fromTree = await computePatch(taken, await updateTree(taken));
      expect(fromIndex.to).toBe("");
      expect(fromIndex.files).toEqual(fromTree.files);
      expect(fromIndex.sections).toEqual(fromTree.sections);
      expect(fromIndex.files.map((file) => file.status).sort()).toEqual(
        ["added", "added", "deleted", "modified", "modified", "modified", "renamed"].sort(),
      );
      expect(await bytes(fromIndex)).toBe(await bytes(fromTree));
    });
  }

  test("over the deflate limit it is stored, and still applies", async () => {
    const root = gitRepo(START);
    const start = copyWithoutGit(root);
    const taken = await snapshot(root);
    changeAll(root);
    writeFiles(root, { "src/new.bin": BINARY });
    expect(await updateIndex(taken)).toBeUndefined();
    const patch = await computePatch(taken, THE_INDEX, { deflateMaxBytes: 1000 });
    // Stored: the new binary file as it is, base85 (five characters per four bytes).
    const text = fs.readFileSync(patch.file, "utf8");
    expect(text).toContain(`literal ${BINARY.length}`);
    expect(patch.bytes).toBeGreaterThan(BINARY.length);
    execFileSync("git", ["apply", "--binary", patch.file], { cwd: start });
    expect(fs.readFileSync(path.join(start, "src/new.bin")).equals(BINARY)).toBe(true);
    expect(fs.readFileSync(path.join(start, "src/data.bin"))[100]).toBe(0);
    expect(fs.readlinkSync(path.join(start, "src/link"))).toBe("keep.txt");
  });

  test("with nothing changed is empty, with no file", async () => {
    const root = gitRepo(START);
    const taken = await snapshot(root);
    writeFiles(root, { "src/edit.txt": "changed\n" });
    await updateTree(taken);
    writeFiles(root, { "src/edit.txt": START["src/edit.txt"] });
    await updateIndex(taken);
    const patch = await computePatch(taken, THE_INDEX);
    expect(patch).toMatchObject({ from: taken.tree, file: "", bytes: 0, files: [] });
  });
});

describe("updateIndex", () => {
  test("names the start tree when nothing changed, and the last written tree while nothing changes", async () => {
    const root = gitRepo(START);
    const taken = await snapshot(root);
    expect(await updateIndex(taken)).toBe(taken.tree);
    writeFiles(root, { "src/new.txt": "new\n" });
    const tree = await updateTree(taken);
    expect(tree).not.toBe(taken.tree);
    expect(await updateIndex(taken)).toBe(tree);
    expect(await updateIndex(taken)).toBe(tree);
  });

  test("names the tree when git rewrote the index for a racily clean file, entries unchanged", async () => {
    const root = gitRepo(START);
    const taken = await snapshot(root);
    // Early in a second, so that the file and the index written after it share that second: git
    // (which compares whole seconds) then takes the file for racily clean, and its next add reads
    // it again and writes the index anew (stat data, cache-tree extension), the entries as they were.
    // A machine too slow to write the index within that second gets two more tries.
    let rewritten = false;
    for (let attempt = 0; attempt < 3 && !rewritten; attempt++) {
      while (Date.now() % 1000 > 300) await new Promise((resolve) => setTimeout(resolve, 20));
      writeFiles(root, { [`src/new-${attempt}.txt`]: "new\n" });
      const tree = await updateTree(taken);
      const before = fs.readFileSync(taken.env.GIT_INDEX_FILE ?? "");
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await updateIndex(taken)).toBe(tree);
      rewritten = !fs.readFileSync(taken.env.GIT_INDEX_FILE ?? "").equals(before);
    }
    expect(rewritten).toBe(true);
  });

  test("in a SHA-256 repository too (32-byte object ids in the index)", async () => {
    const root = tempDir();
    execFileSync("git", ["init", "-q", "--object-format=sha256", root]);
    writeFiles(root, START);
    const taken = await snapshot(root);
    expect(taken.tree).toMatch(/^[0-9a-f]{64}$/);
    expect(await updateIndex(taken)).toBe(taken.tree);
    changeAll(root);
    expect(await updateIndex(taken)).toBeUndefined();
    const fromIndex = await computePatch(taken, THE_INDEX);
    const tree = await updateTree(taken);
    expect(await updateIndex(taken)).toBe(tree);
    expect(await bytes(fromIndex)).toBe(await bytes(await computePatch(taken, tree)));
  });

  test("names no tree once a file changed, even at once and to the same size", async () => {
    const root = gitRepo(START);
    const taken = await snapshot(root);
    for (const content of ["one\ntwo\nthreE\n", "one\ntwo\nthrEE\n", "one\ntwo\nthREE\n"]) {
      const tree = await updateTree(taken);
      // Within the same clock tick as the index git just wrote: git must read the file again.
      writeFiles(root, { "src/edit.txt": content });
      expect(await updateIndex(taken)).toBeUndefined();
      const patch = await computePatch(taken, THE_INDEX);
      expect(fs.readFileSync(patch.file, "utf8")).toContain(`+${content.split("\n")[2]}`);
      expect(await updateTree(taken)).not.toBe(tree);
    }
  });

  test("a tree it names is always the index's: checked against write-tree after each step", async () => {
    const root = gitRepo(START);
    const taken = await snapshot(root);
    const steps: Array<() => void> = [
      () => writeFiles(root, { "src/a.txt": "a\n" }),
      () => fs.utimesSync(path.join(root, "src/keep.txt"), new Date(), new Date()),
      () => {},
      () => fs.rmSync(path.join(root, "src/a.txt")),
      () => fs.chmodSync(path.join(root, "src/keep.txt"), 0o755),
      () => {},
    ];
    for (const step of steps) {
      await updateTree(taken);
      step();
      const named = await updateIndex(taken);
      const actual = await updateTree(taken);
      if (named !== undefined) expect(named).toBe(actual);
    }
  });
});
