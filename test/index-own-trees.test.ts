/**
 * A small index's trees built by the runner (src/output/index-entries.ts, `treeObjectsOf`) instead
 * of `git write-tree`, for a plain folder's snapshot. The oracle is git: for indexes holding names
 * that sort in every tricky way, modes of every kind and either object format, the root's id is
 * the one `git write-tree` answers, and once the objects are written git reads every file back
 * and `git fsck` finds nothing wrong. What git must do itself (a merge stage, index version 4,
 * past OWN_TREES_MAX_ENTRIES entries) is declined.
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { OWN_TREES_MAX_ENTRIES, treeObjectsOf } from "../src/output/index-entries.ts";
import { type LooseObject, writeLooseObjects } from "../src/output/loose-objects.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A work tree with its git dir apart (as a snapshot's), the files of `files` added to its index. */
async function indexed(files: Record<string, string>, format = "sha1") {
  const root = await mkdtemp(path.join(os.tmpdir(), "own-trees-"));
  dirs.push(root);
  const work = path.join(root, "work");
  const gitDir = path.join(root, "git");
  await mkdir(work);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(work, name)), { recursive: true });
    if (content.startsWith("->")) await symlink(content.slice(2), path.join(work, name));
    else await writeFile(path.join(work, name), content);
    if (name.endsWith(".sh")) await chmod(path.join(work, name), 0o755);
  }
  const env = { ...process.env, GIT_DIR: gitDir, GIT_WORK_TREE: work };
  const git = (args: string[], input?: string) =>
    execFileSync("git", args, {
      cwd: work,
      env,
      encoding: "utf8",
      ...(input !== undefined && { input }),
    }).trim();
  git(["init", "-q", `--object-format=${format}`]);
  git(["add", "--all"]);
  // An index even when nothing was added.
  if (Object.keys(files).length === 0) git(["read-tree", "--empty"]);
  return { root, git, gitDir, format, index: async () => readFile(path.join(gitDir, "index")) };
}

/**
 * A store of its own for `trees` (the blobs reached through alternates), and git asking there:
 * what is checked is what `writeLooseObjects` wrote, not what the oracle's write-tree did.
 */
async function storeOf(repo: Awaited<ReturnType<typeof indexed>>, trees: LooseObject[]) {
  const store = path.join(repo.root, "own.git");
  execFileSync("git", ["init", "-q", "--bare", `--object-format=${repo.format}`, store]);
  await writeFile(
    path.join(store, "objects", "info", "alternates"),
    `${path.join(repo.gitDir, "objects")}\n`,
  );
  await writeLooseObjects(store, trees);
  return (...args: string[]) =>
    execFileSync("git", ["-c", "core.quotepath=false", ...args], {
      env: { ...process.env, GIT_DIR: store },
      encoding: "utf8",
    }).trim();
}

const TRICKY: Record<string, string> = {
  a: "file named a\n",
  "a-b": "dash sorts before slash\n",
  "a.b": "dot sorts before slash\n",
  "a0/x": "zero sorts after slash\n",
  "b/a": "in b\n",
  "b/c/d/e.txt": "deep\n",
  "b/c-d": "beside c\n",
  "b/c.d/f": "dot dir\n",
  "b/c/z": "last in c\n",
  "dir with space/file name.txt": "spaces\n",
  "unicodé/ñame.txt": "non-ASCII\n",
  "run.sh": "#!/bin/sh\n",
  "empty.txt": "",
  link: "->b/a",
  "zz/link-to-dir": "->../b",
};

test.for(["sha1", "sha256"])(
  "a %s index: the same root as git write-tree, and a sound store",
  async (format) => {
    const repo = await indexed(TRICKY, format);
    // A gitlink (a submodule's commit) among the files, as an index can hold one.
    const commitId = "1".repeat(format === "sha1" ? 40 : 64);
    repo.git(["update-index", "--add", "--cacheinfo", `160000,${commitId},b/sub`]);
    const trees = treeObjectsOf(await repo.index(), format === "sha1" ? 20 : 32) ?? [];
    const root = trees.at(-1)?.id ?? "";
    const git = await storeOf(repo, trees);
    expect(root).toBe(repo.git(["write-tree"]));
    expect(git("ls-tree", "-r", "--name-only", root).split("\n")).toContain("unicodé/ñame.txt");
    expect(git("cat-file", "-p", `${root}:b/c/d/e.txt`)).toBe("deep");
    expect(git("rev-parse", `${root}:b/sub`)).toBe(commitId);
    expect(git("cat-file", "-p", `${root}:link`)).toBe("b/a");
    expect(git("ls-tree", root, "run.sh")).toMatch(/^100755 blob /);
    expect(git("ls-tree", root, "zz/link-to-dir")).toMatch(/^120000 blob /);
    for (const tree of trees) expect(git("cat-file", "-t", tree.id)).toBe("tree");
    git("fsck", "--strict", "--no-dangling", "--no-progress", root);
  },
);

test("an empty index is the empty tree; a nested-only one has every level", async () => {
  const empty = await indexed({});
  expect(treeObjectsOf(await empty.index(), 20)?.at(-1)?.id).toBe(empty.git(["write-tree"]));
  const nested = await indexed({ "x/y/z/w.txt": "w\n" });
  const trees = treeObjectsOf(await nested.index(), 20);
  expect(trees?.length).toBe(4);
  expect(trees?.at(-1)?.id).toBe(nested.git(["write-tree"]));
});

test("declined: a merge stage, index version 4, more than OWN_TREES_MAX_ENTRIES entries", async () => {
  const staged = await indexed({ "a.txt": "a\n" });
  const blob = staged.git(["rev-parse", ":a.txt"]);
  staged.git(
    ["update-index", "--index-info"],
    `0 ${"0".repeat(40)}\ta.txt\n100644 ${blob} 1\ta.txt\n100644 ${blob} 2\ta.txt\n`,
  );
  expect(treeObjectsOf(await staged.index(), 20)).toBeUndefined();

  const v4 = await indexed({ "a.txt": "a\n" });
  v4.git(["update-index", "--index-version", "4"]);
  expect(treeObjectsOf(await v4.index(), 20)).toBeUndefined();

  const many: Record<string, string> = {};
  for (let i = 0; i <= OWN_TREES_MAX_ENTRIES; i++) many[`f/${i}.txt`] = "";
  const big = await indexed(many);
  expect(treeObjectsOf(await big.index(), 20)).toBeUndefined();
});
