import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, unlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { gitlinkPaths } from "../src/output/index-entries.ts";
import { SEED_MIN_ENTRIES } from "../src/output/seed-index.ts";
import {
  disposeSnapshot,
  snapshotWorkspace,
  updateTree,
  type WorkspaceSnapshot,
} from "../src/output/snapshot.ts";
import { runScriptedCli } from "./helpers/scripted-cli.ts";

// The oracle: a snapshot whose private index started from the repository's must hold the very
// trees one started empty holds (every file's bytes as on disk), at the start and after a change.

const dirs: string[] = [];
const snapshots: WorkspaceSnapshot[] = [];
afterEach(async () => {
  for (const snapshot of snapshots.splice(0)) await disposeSnapshot(snapshot);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

function gitIn(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
    cwd: dir,
    env: GIT_ENV,
    encoding: "utf8",
  });
}

/** A repository with `count` committed files under src/ plus `files`, set up further by `before` before its commit. */
async function repository(
  files: Record<string, string>,
  options: { count?: number; before?: (dir: string) => void } = {},
): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-seed-"));
  dirs.push(dir);
  const count = options.count ?? SEED_MIN_ENTRIES + 100;
  for (let d = 0; d * 100 < count; d++) {
    await mkdir(path.join(dir, "src", `d${d}`), { recursive: true });
    for (let f = d * 100; f < Math.min(count, (d + 1) * 100); f++) {
      await writeFile(path.join(dir, "src", `d${d}`, `f${f}.txt`), `file ${f}\n`);
    }
  }
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  gitIn(dir, "init", "-q");
  options.before?.(dir);
  gitIn(dir, "add", "-A");
  gitIn(dir, "commit", "-qm", "start");
  return dir;
}

/**
 * As a checkout long done leaves a repository: the index written well after its files, every entry
 * clean by its stat data (a file written in the index's tick is "racily clean": git re-reads it,
 * which would hide what these tests look for).
 */
async function settle(dir: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  gitIn(dir, "update-index", "--refresh");
}

async function snapshotsOf(dir: string): Promise<{ seeded: WorkspaceSnapshot; plain: WorkspaceSnapshot }> {
  const seeded = await snapshotWorkspace(dir, { exclude: [".agent-run"] });
  snapshots.push(seeded);
  const plain = await snapshotWorkspace(dir, { exclude: [".agent-run"], seedIndex: false });
  snapshots.push(plain);
  expect(plain.seededIndex).toBe(false);
  return { seeded, plain };
}

async function expectSameTrees(dir: string, seededIndex: boolean): Promise<{ seeded: WorkspaceSnapshot }> {
  const { seeded, plain } = await snapshotsOf(dir);
  expect(seeded.seededIndex).toBe(seededIndex);
  expect(seeded.tree).toBe(plain.tree);
  expect([...seeded.ignored.entries].sort()).toEqual([...plain.ignored.entries].sort());
  return { seeded };
}

describe("the snapshot's index seeded from the repository's", () => {
  test("a clean repository: seeded, the same tree", async () => {
    const dir = await repository({});
    const { seeded } = await expectSameTrees(dir, true);
    expect(seeded.tree).toBe(gitIn(dir, "rev-parse", "HEAD^{tree}").trim());
  });

  test("below the threshold the index starts empty", async () => {
    const dir = await repository({}, { count: 20 });
    await expectSameTrees(dir, false);
  });

  test("staged, modified, deleted, untracked and tracked-ignored files", async () => {
    const dir = await repository(
      { ".gitignore": "*.log\n" },
      {
        before: (repo) => {
          execFileSync("sh", ["-c", "echo kept > keep.log"], { cwd: repo });
          gitIn(repo, "add", "-f", "keep.log");
        },
      },
    );
    await writeFile(path.join(dir, "src/d1/f101.txt"), "staged\n");
    gitIn(dir, "add", "src/d1/f101.txt");
    await writeFile(path.join(dir, "src/d1/f101.txt"), "then changed on disk\n");
    await unlink(path.join(dir, "src/d2/f202.txt"));
    await writeFile(path.join(dir, "new.txt"), "untracked\n");
    await writeFile(path.join(dir, "keep.log"), "tracked, ignored, changed\n");
    await writeFile(path.join(dir, "other.log"), "ignored\n");
    await expectSameTrees(dir, true);
  });

  test("a file changed after the index was written, same size, its mtime set back: git's ctime check still sees it", async () => {
    const dir = await repository({});
    const file = path.join(dir, "src/d3/f303.txt");
    const before = (await readFile(file, "utf8")).length;
    const stat = await import("node:fs/promises").then((fs) => fs.stat(file));
    await writeFile(file, "FILE 303\n");
    expect("FILE 303\n".length).toBe(before);
    await utimes(file, stat.atime, stat.mtime);
    await expectSameTrees(dir, true);
  });

  test("line-ending and filter attributes: those files are hashed from disk, before and after a change", async () => {
    const dir = await repository(
      { ".gitattributes": "*.crlf eol=crlf\n*.up filter=up\n", "a.crlf": "x\ny\n", "b.up": "hello\n" },
      {
        before: (repo) => {
          gitIn(repo, "config", "filter.up.clean", "tr a-z A-Z");
          gitIn(repo, "config", "filter.up.smudge", "cat");
        },
      },
    );
    // Checked out again: CRLF on disk where the object store holds LF.
    await unlink(path.join(dir, "a.crlf"));
    gitIn(dir, "checkout", "--", "a.crlf");
    expect(await readFile(path.join(dir, "a.crlf"), "utf8")).toBe("x\r\ny\r\n");
    await settle(dir);
    const { seeded, plain } = await snapshotsOf(dir);
    expect(seeded.seededIndex).toBe(true);
    expect(seeded.tree).toBe(plain.tree);
    await writeFile(path.join(dir, "a.crlf"), "x\r\nz\r\n");
    await writeFile(path.join(dir, "b.up"), "hello again\n");
    expect(await updateTree(seeded)).toBe(await updateTree(plain));
  });

  test("the user's core.autocrlf converts: no seed", async () => {
    const dir = await repository(
      { "c.txt": "a\r\nb\r\n" },
      {
        before: (repo) => gitIn(repo, "config", "core.autocrlf", "true"),
      },
    );
    await settle(dir);
    await expectSameTrees(dir, false);
  });

  test("an assume-unchanged entry: no seed", async () => {
    const dir = await repository({});
    gitIn(dir, "update-index", "--assume-unchanged", "src/d0/f5.txt");
    await writeFile(path.join(dir, "src/d0/f5.txt"), "changed behind git's back\n");
    await expectSameTrees(dir, false);
  });

  test("a tracked file in the outputs folder: no seed", async () => {
    const dir = await repository({ ".agent-run/old.txt": "committed output\n" });
    await expectSameTrees(dir, false);
  });

  test("index version 4 (path compression): seeded, the same tree", async () => {
    const dir = await repository({ "deep/er/name-a.txt": "a\n", "deep/er/name-b.txt": "b\n" });
    gitIn(dir, "update-index", "--index-version", "4");
    await writeFile(path.join(dir, "deep/er/name-b.txt"), "changed\n");
    await expectSameTrees(dir, true);
  });

  test("a split index: no seed", async () => {
    const dir = await repository({});
    gitIn(dir, "update-index", "--split-index");
    await expectSameTrees(dir, false);
  });
});

test("built CLI: an edit of a file checked out with CRLF makes a one-line patch that applies", async () => {
  const dir = await repository({ ".gitattributes": "*.crlf eol=crlf\n", "a.crlf": "x\ny\nw\n" });
  await unlink(path.join(dir, "a.crlf"));
  gitIn(dir, "checkout", "--", "a.crlf");
  await settle(dir);
  const run = await runScriptedCli(
    dir,
    "model: anthropic:claude-sonnet-4-5\nprompt: edit\ntools: [edit]\nsandbox: off\n",
    [
      {
        tool_calls: [
          { name: "edit", arguments: { path: "a.crlf", edits: [{ oldText: "y", newText: "z" }] } },
        ],
      },
      { text: "done" },
    ],
  );
  expect(run.code).toBe(0);
  const patch = await readFile(path.join(run.outDir, "patch.diff"), "utf8");
  expect(patch.split("\n").filter((line) => /^[-+][^-+]/.test(line))).toEqual(["-y\r", "+z\r"]);
  gitIn(dir, "checkout", "--", "a.crlf");
  gitIn(dir, "apply", "--check", path.join(run.outDir, "patch.diff"));
});

test("gitlinkPaths reads the gitlinks git lists, and declines a version 4 index", async () => {
  const dir = await repository({}, { count: 30 });
  const head = gitIn(dir, "rev-parse", "HEAD").trim();
  for (const name of ["a-sub", "src/d0/nested sub", "zz"]) {
    gitIn(dir, "update-index", "--add", "--cacheinfo", `160000,${head},${name}`);
  }
  const listed = gitIn(dir, "ls-files", "-s", "-z")
    .split("\0")
    .filter((record) => record.startsWith("160000 "))
    .map((record) => record.slice(record.indexOf("\t") + 1));
  expect(listed).toEqual(["a-sub", "src/d0/nested sub", "zz"]);
  expect(gitlinkPaths(await readFile(path.join(dir, ".git/index")), 20)).toEqual(listed);
  gitIn(dir, "update-index", "--index-version", "4");
  expect(gitlinkPaths(await readFile(path.join(dir, ".git/index")), 20)).toBeUndefined();
});
