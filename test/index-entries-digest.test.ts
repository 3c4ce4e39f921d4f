import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { indexEntriesDigest } from "../src/output/index-entries.ts";
import { tempDir, writeFiles } from "./output-helpers.ts";

/**
 * The digest of an index's entries (src/output/index-entries.ts) names the tree the index writes:
 * it changes with a path, a mode or a content, not with what git rewrites without
 * changing an entry, and there is none for what it does not read.
 */
function repo(files: Record<string, string>): {
  dir: string;
  index: () => Buffer;
  git: (...args: string[]) => string;
} {
  const dir = tempDir();
  execFileSync("git", ["init", "-q", dir]);
  writeFiles(dir, files);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
  git("add", "-A");
  return { dir, index: () => fs.readFileSync(path.join(dir, ".git", "index")), git };
}

test("the same for the same entries, whatever the stat data and the cache-tree", () => {
  const { dir, index, git } = repo({ "a.txt": "a\n", "d/b.txt": "b\n" });
  const first = indexEntriesDigest(index(), 20);
  expect(first).toMatch(/^[0-9a-f]{64}$/);
  const before = index();
  git("write-tree");
  fs.utimesSync(path.join(dir, "a.txt"), new Date(2000, 1, 1), new Date(2000, 1, 1));
  git("update-index", "--refresh");
  expect(index().equals(before)).toBe(false);
  expect(indexEntriesDigest(index(), 20)).toBe(first);
});

test("different for another content, path, mode or a removed entry", () => {
  const { dir, index, git } = repo({ "a.txt": "a\n", "d/b.txt": "b\n" });
  const seen = new Set([indexEntriesDigest(index(), 20)]);
  writeFiles(dir, { "a.txt": "A\n" });
  git("add", "-A");
  seen.add(indexEntriesDigest(index(), 20));
  git("mv", "d/b.txt", "d/c.txt");
  seen.add(indexEntriesDigest(index(), 20));
  fs.chmodSync(path.join(dir, "a.txt"), 0o755);
  git("add", "-A");
  seen.add(indexEntriesDigest(index(), 20));
  git("rm", "-q", "--cached", "a.txt");
  seen.add(indexEntriesDigest(index(), 20));
  expect(seen.size).toBe(5);
  expect([...seen].every((digest) => digest !== undefined)).toBe(true);
});

test("none for index version 4, intent-to-add entries or a damaged file", () => {
  const { dir, index, git } = repo({ "a.txt": "a\n" });
  const good = index();
  expect(indexEntriesDigest(good.subarray(0, good.length - 30), 20)).toBeUndefined();
  expect(indexEntriesDigest(Buffer.from("not an index at all, not one"), 20)).toBeUndefined();
  writeFiles(dir, { "later.txt": "later\n" });
  git("add", "-N", "later.txt");
  expect(indexEntriesDigest(index(), 20)).toBeUndefined();
  git("rm", "-q", "--cached", "later.txt");
  git("update-index", "--index-version", "4");
  expect(indexEntriesDigest(index(), 20)).toBeUndefined();
});
