import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { BUILT_ACTION, BUILT_CLI } from "./helpers/built.ts";
import { ROOT } from "./helpers/cli.ts";

/** Every file below `dir`, relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

/**
 * Runs a bundle with `tmp` as its temp folder. Not through NODE_COMPILE_CACHE: Node turns the
 * cache on from that variable by itself, so it could not tell whether the entry does.
 */
function run(entry: string, args: string[], tmp: string, extra: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [entry, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH, GITHUB_ACTIONS: "", TMPDIR: tmp, ...extra },
  });
}

const tempDir = () => mkdtempSync(path.join(os.tmpdir(), "agent-run-compile-cache-"));

describe("the bundles' compile cache (issue 18: start-up)", () => {
  test("the CLI's entry turns it on: its chunks are cached in <tmpdir>/node-compile-cache, and reused", () => {
    const tmp = tempDir();
    const first = run(BUILT_CLI, ["validate", "examples/lint-fix/task.yml"], tmp);
    expect(first.status).toBe(0);
    const cache = path.join(tmp, "node-compile-cache");
    const cached = filesBelow(cache);
    // The entry imports its chunks after turning the cache on: they are the ones cached.
    expect(cached.length).toBeGreaterThan(1);
    const second = run(BUILT_CLI, ["validate", "examples/lint-fix/task.yml"], tmp);
    expect(second.status).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(filesBelow(cache).sort()).toEqual(cached.sort());
  });

  test("NODE_DISABLE_COMPILE_CACHE=1 keeps it off", () => {
    const tmp = tempDir();
    const result = run(BUILT_CLI, ["--version"], tmp, { NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(result.status).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  });

  test("not on a GitHub-hosted runner, whose machine goes with the job, unless NODE_COMPILE_CACHE names a folder", () => {
    const hosted = { GITHUB_ACTIONS: "true", RUNNER_ENVIRONMENT: "github-hosted" };
    for (const entry of [BUILT_CLI, BUILT_ACTION]) {
      const tmp = tempDir();
      const args = entry === BUILT_CLI ? ["validate", "examples/lint-fix/task.yml"] : [];
      const result = run(entry, args, tmp, hosted);
      if (entry === BUILT_CLI) expect(result.status, result.stderr).toBe(0);
      expect(readdirSync(tmp)).toEqual([]);
      // A self-hosted runner's machine stays: written as anywhere else.
      run(entry, args, tmp, { ...hosted, RUNNER_ENVIRONMENT: "self-hosted" });
      expect(filesBelow(path.join(tmp, "node-compile-cache")).length).toBeGreaterThan(1);
    }
    // A folder the workflow keeps (actions/cache): written, the core's code caches too.
    const tmp = tempDir();
    const kept = path.join(tmp, "kept");
    const result = run(BUILT_CLI, ["validate", "examples/lint-fix/task.yml"], tmp, {
      ...hosted,
      NODE_COMPILE_CACHE: kept,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(filesBelow(kept).some((file) => file.startsWith("agent-run-"))).toBe(true);
  });

  test("the action's entry turns it on too", () => {
    const tmp = tempDir();
    // Without the Actions environment the action stops at its inputs (exit non-zero), after
    // loading its chunks.
    run(BUILT_ACTION, [], tmp);
    expect(filesBelow(path.join(tmp, "node-compile-cache")).length).toBeGreaterThan(1);
  });
});
