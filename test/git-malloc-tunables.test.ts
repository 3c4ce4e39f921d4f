import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { git } from "../src/output/git.ts";
import { detectSandbox, prepareSandbox, snapshotGitWrapper } from "../src/sandbox/index.ts";
import { runCli } from "./helpers/cli.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";
import { gitRepo, tempDir } from "./output-helpers.ts";

/**
 * The runner's own git (snapshot, checkpoints, patch) runs with glibc's malloc told to keep freed
 * heap (see GIT_MALLOC_TUNABLES in src/output/git.ts): a first `git add` of a big workspace
 * otherwise faults its heap in anew for every file. A GLIBC_TUNABLES of the user's own is kept.
 */
const OURS = "glibc.malloc.trim_threshold=268435456";
const REAL_GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
const TASK = "model: anthropic:claude-haiku-5-5\nprompt: Write it.\ntools: [write]\nsandbox: off\n";

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** The GLIBC_TUNABLES of every git call of a run of the built CLI (a `git` first in PATH notes it). */
async function tunablesSeen(env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const bin = tempDir("agent-run-git-env-");
  const log = path.join(bin, "seen");
  writeFileSync(log, "");
  writeFileSync(
    path.join(bin, "git"),
    `#!/bin/sh\nprintf '%s\\n' "\${GLIBC_TUNABLES-unset}" >> '${log}'\nexec '${REAL_GIT}' "$@"\n`,
  );
  chmodSync(path.join(bin, "git"), 0o755);
  mock = await startMockLlm({
    script: [
      { toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "a\n" } }] },
      { text: "Done." },
    ],
  });
  const repo = gitRepo({ "task.yml": TASK, "README.md": "start\n" });
  const result = await runCli([path.join(repo, "task.yml")], {
    cwd: repo,
    env: { ...mockEnv(mock.url), ...env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
  });
  expect(result.code, result.stderr).toBe(0);
  expect(readFileSync(path.join(repo, ".agent-run", "patch.diff"), "utf8")).toContain("+a");
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

describe("the runner's git and glibc's malloc", () => {
  test("every git call of a run keeps its freed heap", async () => {
    const seen = await tunablesSeen({ GLIBC_TUNABLES: undefined });
    // The snapshot's, the checkpoint's and the end's: several.
    expect(seen.length).toBeGreaterThan(3);
    expect(new Set(seen)).toEqual(new Set([OURS]));
  });

  test("a GLIBC_TUNABLES of the user's own is left as it is", async () => {
    const mine = "glibc.malloc.arena_max=2";
    const seen = await tunablesSeen({ GLIBC_TUNABLES: mine });
    expect(seen.length).toBeGreaterThan(3);
    expect(new Set(seen)).toEqual(new Set([mine]));
  });
});

describe.skipIf(NO_SANDBOX)("the snapshot's git confined in bubblewrap", () => {
  test("keeps the setting inside", async () => {
    const dir = tempDir("agent-run-git-env-box-");
    const support = await detectSandbox({ env: process.env });
    if (!support.available) throw new Error(support.reason);
    const prepared = await prepareSandbox({
      bwrapPath: support.bwrapPath,
      workspace: dir,
      protectedGlobs: [],
      env: process.env,
    });
    try {
      const wrap = snapshotGitWrapper(prepared.policy, { workTree: dir, tempDir: dir });
      if (!wrap) throw new Error("the workspace is not visible in the sandbox");
      // An alias runs a shell command from git, with git's environment: inside the bwrap here.
      const result = await git(["-c", 'alias.tunables=!printf %s "$GLIBC_TUNABLES"', "tunables"], {
        cwd: dir,
        wrap,
      });
      expect(result.failed, result.stderr).toBe(false);
      expect(result.stdout).toBe(OURS);
    } finally {
      await prepared.dispose();
    }
  });
});
