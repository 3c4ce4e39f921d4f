/** Shared fixtures for the output tests: temp workspaces, shell steps, tree comparison. */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { emptyUsage } from "../src/core/usage.ts";
import type { RunRecord } from "../src/output/types.ts";

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp dir, removed after the test file's tests. */
export function tempDir(prefix = "agent-run-test-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Runs a shell script in `cwd` with a fixed git identity and no user git config. */
export function sh(cwd: string, script: string): string {
  return execFileSync("sh", ["-c", script], {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });
}

/** A git repository with `files` committed. */
export function gitRepo(files: Record<string, string | Buffer>): string {
  const dir = tempDir();
  writeFiles(dir, files);
  sh(dir, "git init -q -b main && git add -A && git commit -qm init --allow-empty");
  return dir;
}

export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
}

/** Copies `dir` (without `.git`) to a fresh temp dir: "a clean copy of the starting state". */
export function copyWithoutGit(dir: string): string {
  const copy = tempDir("agent-run-copy-");
  fs.cpSync(dir, copy, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => path.basename(source) !== ".git",
  });
  return copy;
}

/** Path → content hash, exec bit or symlink target, for every file under `dir` except `skip`ped paths. */
export function treeState(dir: string, skip: string[] = []): Record<string, string> {
  const state: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      const relative = path.relative(dir, full);
      if (entry.name === ".git" || skip.some((s) => relative === s || relative.startsWith(`${s}/`))) continue;
      if (entry.isSymbolicLink()) state[relative] = `link:${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) walk(full);
      else {
        const exec = (fs.statSync(full).mode & 0o100) !== 0 ? "x" : "-";
        state[relative] = `${exec}:${createHash("sha1").update(fs.readFileSync(full)).digest("hex")}`;
      }
    }
  };
  walk(dir);
  return state;
}

/** A run record with zero usage, for tests to override. */
export function makeRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    taskName: "fix-lint",
    description: "Fix every lint error",
    conclusion: "success",
    model: "anthropic:claude-sonnet-4-5",
    models: ["anthropic:claude-sonnet-4-5"],
    turns: 0,
    durationMs: 0,
    usage: emptyUsage(),
    toolCalls: {},
    blocked: [],
    hookFailures: [],
    lastAssistantText: "",
    ...overrides,
  };
}
