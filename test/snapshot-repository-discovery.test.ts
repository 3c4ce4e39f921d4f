/**
 * Whether a workspace is in a git repository is asked of git (`git rev-parse`) only when the file
 * system leaves it open: a plain folder, with no `.git` and no git dir at or above it, is answered
 * without the process (src/output/snapshot.ts, `outsideAnyRepository`). The oracle for every case
 * is the snapshot's own view (a repository's snapshot knows its top level and has the user's
 * objects as alternates); a `git` on PATH that notes each subcommand says whether git was asked.
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { disposeSnapshot, snapshotWorkspace } from "../src/output/snapshot.ts";

let root = "";
let log = "";
let savedPath: string | undefined;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "snapshot-discovery-"));
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const bin = path.join(root, "bin");
  await mkdir(bin);
  log = path.join(root, "git.log");
  await writeFile(
    path.join(bin, "git"),
    `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\nexec ${realGit} "$@"\n`,
  );
  await chmod(path.join(bin, "git"), 0o755);
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${process.env.PATH}`;
});

afterAll(async () => {
  process.env.PATH = savedPath;
  await rm(root, { recursive: true, force: true });
});

/** Snapshots `dir` and says whether git was asked about a repository and what the snapshot saw. */
async function discover(
  dir: string,
): Promise<{ askedGit: boolean; inRepository: boolean; workTree: string }> {
  await writeFile(log, "");
  const snapshot = await snapshotWorkspace(dir);
  try {
    const calls = (await readFile(log, "utf8")).split("\n");
    return {
      askedGit: calls.some((line) => line.includes("rev-parse")),
      inRepository: snapshot.inRepository,
      workTree: path.relative(root, snapshot.workTree),
    };
  } finally {
    await disposeSnapshot(snapshot);
  }
}

test("a plain folder: no git asked, not a repository", async () => {
  const dir = path.join(root, "plain", "work");
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "a.txt"), "a\n");
  expect(await discover(dir)).toEqual({ askedGit: false, inRepository: false, workTree: "plain/work" });
});

test("a repository, a folder inside one, and a worktree (.git as a file): git is asked and finds it", async () => {
  const repo = path.join(root, "repo");
  await mkdir(path.join(repo, "sub", "deep"), { recursive: true });
  await writeFile(path.join(repo, "sub", "deep", "a.txt"), "a\n");
  const run = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, stdio: "ignore" });
  run(repo, "init", "-q");
  run(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start");
  expect(await discover(repo)).toEqual({ askedGit: true, inRepository: true, workTree: "repo" });
  expect(await discover(path.join(repo, "sub", "deep"))).toEqual({
    askedGit: true,
    inRepository: true,
    workTree: "repo",
  });
  const linked = path.join(root, "linked");
  run(repo, "worktree", "add", "-q", "--detach", linked);
  expect(await discover(linked)).toEqual({ askedGit: true, inRepository: true, workTree: "linked" });
});

test("a folder that looks like a git dir (HEAD beside objects) leaves the question to git", async () => {
  const bare = path.join(root, "bare.git");
  execFileSync("git", ["init", "-q", "--bare", bare]);
  const dir = path.join(bare, "info", "work");
  await mkdir(dir, { recursive: true });
  // Git treats what is inside a bare repository as no work tree: the snapshot is a plain one.
  expect(await discover(dir)).toMatchObject({ askedGit: true, inRepository: false });
});
