/**
 * A run of the built CLI against the mock LLM over a real git workspace, and the check every
 * patch test makes: patch.diff, applied with `git apply` to a clean copy of the start state, gives
 * the end state.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { MockLlm } from "../mock-llm/server.ts";
import { copyWithoutGit, gitRepo, tempDir, treeState } from "../output-helpers.ts";
import { startCli } from "./cli.ts";

export interface PatchRun {
  /** The workspace (a git repository). */
  root: string;
  /** A copy of the workspace as it was before the run. */
  start: string;
  out: string;
  child: ReturnType<typeof startCli>["child"];
  done: ReturnType<typeof startCli>["done"];
  /** Resolves once stdout (the --json events) holds `text`. */
  stdoutHas(text: string): Promise<void>;
}

/** Starts `agent-run` (unsandboxed bash, --json) on a fresh repository holding `files`. */
export function startPatchRun(
  mock: MockLlm,
  files: Record<string, string>,
  options: { env?: NodeJS.ProcessEnv; tools?: string } = {},
): PatchRun {
  const root = gitRepo(files);
  const start = copyWithoutGit(root);
  const taskDir = tempDir("agent-run-task-");
  const task = path.join(taskDir, "task.yml");
  writeFileSync(
    task,
    `model: anthropic:claude-haiku-4-5\nprompt: change things\ntools: [${options.tools ?? "bash"}]\nsandbox: off\n`,
  );
  const { child, done } = startCli([task, "--cwd", root, "--json"], {
    env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: mock.url, ...options.env },
  });
  let stdout = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const waiter of waiters.splice(0)) {
      if (stdout.includes(waiter.text)) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  return {
    root,
    start,
    out: path.join(root, ".agent-run"),
    child,
    done,
    stdoutHas: (text) =>
      new Promise<void>((resolve) => {
        if (stdout.includes(text)) resolve();
        else waiters.push({ text, resolve });
      }),
  };
}

/** Polls until `check` is true (every 10 ms, up to `ms`). */
export async function until(check: () => boolean, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A temp file of a write in progress in the outputs dir. */
export function writingOutputs(out: string): boolean {
  return existsSync(out) && readdirSync(out).some((name) => name.endsWith(".tmp"));
}

/**
 * Applies `<out>/patch.diff` to `start` (git apply) and expects the result to equal `root` outside
 * `skip` and the outputs dir.
 */
export function expectPatchGivesEndState(
  run: Pick<PatchRun, "root" | "start" | "out">,
  skip: string[] = [],
): void {
  const patch = path.join(run.out, "patch.diff");
  if (readFileSync(patch).length > 0)
    execFileSync("git", ["apply", patch], { cwd: run.start, stdio: "pipe" });
  const ignore = [".agent-run", ...skip];
  expect(treeState(run.start, ignore)).toEqual(treeState(run.root, ignore));
}

/** What `<out>` holds besides the four outputs (temp files left behind, say). */
export function strayFiles(out: string): string[] {
  // .gitignore: the one a run puts in an outputs dir it creates in the workspace.
  const expected = new Set([
    ".gitignore",
    "patch.diff",
    "usage.json",
    "summary.md",
    "events.jsonl",
    "transcript.json",
    "tool-output",
  ]);
  return readdirSync(out).filter((name) => !expected.has(name));
}
