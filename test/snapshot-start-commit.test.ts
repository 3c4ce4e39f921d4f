/**
 * The snapshot's start commit (the HEAD its `git status` compares against) is written by hand as a
 * loose object instead of by `git commit-tree` (src/output/ignored-at-start.ts). The oracle is git:
 * in a store of either object format, git hashes the same body to the same id, reads the object
 * back as that commit of that tree, and `git fsck` finds nothing wrong with it.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { writeStartCommit } from "../src/output/ignored-at-start.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

test.for(["sha1", "sha256"])(
  "a %s store: git reads the commit as written and finds it sound",
  async (format) => {
    const repo = await mkdtemp(path.join(os.tmpdir(), "start-commit-"));
    dirs.push(repo);
    const git = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: repo,
        encoding: "utf8",
        env: { ...process.env, GIT_DIR: path.join(repo, ".git") },
      }).trim();
    git("init", "-q", `--object-format=${format}`);
    const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], {
      cwd: repo,
      input: "hello\n",
      encoding: "utf8",
    }).trim();
    const tree = execFileSync("git", ["mktree"], {
      cwd: repo,
      input: `100644 blob ${blob}\thello.txt\n`,
      encoding: "utf8",
    }).trim();
    const id = await writeStartCommit(path.join(repo, ".git"), tree);
    // Twice is fine: the object is already there.
    expect(await writeStartCommit(path.join(repo, ".git"), tree)).toBe(id);
    const body = git("cat-file", "commit", id);
    expect(body).toBe(
      `tree ${tree}\nauthor agent-run <agent-run@localhost> 0 +0000\ncommitter agent-run <agent-run@localhost> 0 +0000\n\nstart`,
    );
    expect(git("cat-file", "-t", id)).toBe("commit");
    expect(
      execFileSync("git", ["hash-object", "-t", "commit", "--stdin"], {
        cwd: repo,
        input: `${body}\n`,
        encoding: "utf8",
      }).trim(),
    ).toBe(id);
    expect(git("rev-parse", `${id}^{tree}`)).toBe(tree);
    git("update-ref", "HEAD", id);
    expect(git("fsck", "--strict", "--no-dangling")).toBe("");
    expect(git("ls-tree", "--name-only", "HEAD")).toBe("hello.txt");
  },
);
