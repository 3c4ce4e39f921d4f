/**
 * The built action fed a task file that is not one: before the runner loads, the action peeks at
 * the spec (its name for the comment marker, its sandbox mode, its API key variables) and compares
 * it with the trusted commit's. None of that may hang on a FIFO, crash on an alias bomb or crawl
 * on a huge file: the step ends with exit code 2 and the spec problem, soon.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runActionBundle } from "./fake-github/actions-runner.ts";
import { BUILT_ACTION } from "./helpers/built.ts";

const BOMB = [
  "model: anthropic:claude-sonnet-4-5",
  "prompt: x",
  "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
  ...Array.from({ length: 6 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(9).fill(`*a${i}`).join(", ")}]`),
].join("\n");

async function step(prepare: (taskFile: string) => Promise<void>) {
  const workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-action-bad-"));
  await prepare(path.join(workspace, "task.yml"));
  const started = Date.now();
  const run = await runActionBundle({
    main: BUILT_ACTION,
    eventName: "workflow_dispatch",
    payload: {},
    workspace,
    inputs: { task: "task.yml", "anthropic-api-key": "sk-ant-bad-input-0123456789", comment: "false" },
    timeoutMs: 30_000,
  });
  return { ...run, ms: Date.now() - started };
}

describe("the action with a task file that cannot be read", { timeout: 60_000 }, () => {
  test.for([
    ["a FIFO", (file: string) => Promise.resolve(void spawnSync("mkfifo", [file])), "is a FIFO (named pipe)"],
    ["an alias bomb", (file: string) => writeFile(file, `${BOMB}\n`), "aliases expand the document"],
  ] as const)("%s: exit code 2 with the problem, no hang", async ([, prepare, problem]) => {
    const run = await step(prepare);
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    expect(run.outputs["exit-code"]).toBe("2");
    expect(run.stdout + run.stderr).toContain(problem);
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
    expect(run.ms).toBeLessThan(20_000);
  });
});
