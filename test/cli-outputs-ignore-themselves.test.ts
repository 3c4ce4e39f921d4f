import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";

/**
 * Issue 16 through the built CLI: an outputs folder the run creates inside the workspace holds a
 * `.gitignore` of `*`, so `git status` does not list it and `git add -A` cannot commit it; a folder
 * that already existed, or one outside the workspace, is left as it is.
 */
const TASK = "name: t\nmodel: anthropic:claude-sonnet-5-5\nprompt: go\ntools: [read]\n";

async function repo(): Promise<string> {
  const dir = await tempWorkspace({ "task.yml": TASK, "session.yml": "turns:\n  - text: done\n" });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
  git("init", "-q");
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A");
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "start");
  return dir;
}

const run = (dir: string, ...extra: string[]) =>
  runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "session.yml"), ...extra], { cwd: dir });

test("a new .agent-run/ ignores itself: git status stays clean", { timeout: 30_000 }, async () => {
  const dir = await repo();
  const result = await run(dir);
  expect(result.code).toBe(0);
  expect(readFileSync(path.join(dir, ".agent-run", ".gitignore"), "utf8")).toBe(
    "# Written by agent-run: this folder holds a run's outputs, not sources.\n*\n",
  );
  expect(execFileSync("git", ["status", "--porcelain"], { cwd: dir, encoding: "utf8" })).toBe("");
  // A second run in the same folder keeps it and still succeeds.
  expect((await run(dir)).code).toBe(0);
  expect(execFileSync("git", ["status", "--porcelain"], { cwd: dir, encoding: "utf8" })).toBe("");
});

test("a folder that existed, or one outside the workspace, gets no .gitignore", {
  timeout: 30_000,
}, async () => {
  const dir = await repo();
  await mkdir(path.join(dir, "outputs"));
  await writeFile(path.join(dir, "outputs", "keep.txt"), "mine\n");
  expect((await run(dir, "--out", path.join(dir, "outputs"))).code).toBe(0);
  expect(existsSync(path.join(dir, "outputs", ".gitignore"))).toBe(false);
  const outside = path.join(await mkdtemp(path.join(os.tmpdir(), "agent-run-out-")), "new");
  expect((await run(dir, "--out", outside)).code).toBe(0);
  expect(existsSync(path.join(outside, "usage.json"))).toBe(true);
  expect(existsSync(path.join(outside, ".gitignore"))).toBe(false);
});
