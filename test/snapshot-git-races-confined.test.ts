/**
 * The runner's own git keeps the snapshot current after each turn (`updateTree`), while processes
 * the model left running may live. One of them swaps workspace folders with symlinks to a host
 * folder as fast as it can (renameat2 RENAME_EXCHANGE, so each name always exists). git's walk
 * lists a folder, then opens it by name: unconfined, it often opens the host folder and lists its
 * file, then names it in its complaint or, rarely, puts it in the tree (the control below shows
 * the race is real on this machine: about one update in four). In the bwrap of
 * sandbox/snapshot-git.ts the host folder is hidden, so no tree and no message holds its name.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, test } from "vitest";
import { gitOrThrow } from "../src/output/git.ts";
import {
  disposeSnapshot,
  snapshotWorkspace,
  updateTree,
  type WorkspaceSnapshot,
} from "../src/output/index.ts";
import { setupSandbox } from "../src/run/sandbox-setup.ts";
import { detectSandbox, prepareSandbox, snapshotGitWrapper } from "../src/sandbox/index.ts";
import { parseTask } from "../src/spec/index.ts";
import { runnerBashTool } from "./helpers/run-sandbox.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { SWAPPER } from "./helpers/swapper.ts";
import { processesWith, trustWorkspace } from "./helpers/trust.ts";
import { run, textOf } from "./tools-support.ts";

const NAMES = ["a", "b", "c", "d", "e", "f", "g", "h"];

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

interface Race {
  snapshot: WorkspaceSnapshot;
  canary: string;
}

/**
 * In `dir`, a folder for each of NAMES and beside it `<name>.link`, a link to a host folder holding
 * one canary-named file; answers the canary.
 */
async function linksToHost(dir: string): Promise<string> {
  const canary = `cnry-${randomBytes(6).toString("hex")}`;
  const outside = await mkdtemp(path.join(os.tmpdir(), "agent-run-outside-"));
  cleanups.push(() => rm(outside, { recursive: true, force: true }));
  // One file: git gives up on an add when a file it listed is gone, so more would rarely all be read.
  await writeFile(path.join(outside, `${canary}.txt`), `${canary}\n`);
  for (const name of NAMES) {
    await mkdir(path.join(dir, name));
    await symlink(outside, path.join(dir, `${name}.link`));
  }
  return canary;
}

/** A workspace with folders and links to a host folder holding a canary-named file, its snapshot, and the swapper started. */
async function race(): Promise<Race> {
  const dir = await trustWorkspace({ "README.md": "hi\n" }, { git: true });
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const canary = await linksToHost(dir);
  const snapshot = await snapshotWorkspace(dir);
  cleanups.push(() => disposeSnapshot(snapshot));
  const swapper: ChildProcess = spawn("perl", ["-e", SWAPPER, ...NAMES], { cwd: dir, stdio: "ignore" });
  const exited = new Promise((resolve) => swapper.once("exit", resolve));
  cleanups.push(async () => {
    swapper.kill("SIGKILL");
    await exited;
  });
  return { snapshot, canary };
}

/** The wrapper that puts `snapshot`'s git in a bwrap of a sandbox prepared for its workspace. */
async function snapshotGitFor(snapshot: WorkspaceSnapshot) {
  const support = await detectSandbox({ env: process.env });
  if (!support.available) throw new Error(support.reason);
  const prepared = await prepareSandbox({
    bwrapPath: support.bwrapPath,
    workspace: snapshot.root,
    protectedGlobs: [".git/**"],
    env: process.env,
  });
  cleanups.push(() => prepared.dispose());
  return snapshotGitWrapper(prepared.policy, snapshot);
}

/** Updates the snapshot `times` times; how many trees or errors held the canary, and every error's text. */
async function updates(snapshot: WorkspaceSnapshot, canary: string, times: number) {
  let leaked = 0;
  const errors: string[] = [];
  for (let i = 0; i < times; i++) {
    try {
      const tree = await updateTree(snapshot);
      const names = await gitOrThrow(["ls-tree", "-r", "--name-only", tree], {
        cwd: snapshot.workTree,
        env: snapshot.env,
      });
      if (names.includes(canary)) leaked++;
    } catch (error) {
      errors.push(String(error));
      if (String(error).includes(canary)) leaked++;
    }
  }
  return { leaked, errors };
}

/**
 * Confined updates while a swapper runs, in rounds of 20 until at least `atLeast` were tried and
 * some got through the swaps (nearly every one stops at a link to the folder the sandbox hides, so
 * rounds go on until one did: the walks happened), at most 600: how many leaked, every error,
 * how many got through.
 */
async function confinedRounds(snapshot: WorkspaceSnapshot, canary: string, atLeast: number) {
  let leaked = 0;
  let tried = 0;
  let through = 0;
  const errors: string[] = [];
  while ((tried < atLeast || through === 0) && tried < 600) {
    const round = await updates(snapshot, canary, 20);
    leaked += round.leaked;
    errors.push(...round.errors);
    through += 20 - round.errors.length;
    tried += 20;
  }
  return { leaked, errors, through };
}

describe.skipIf(NO_SANDBOX)("the snapshot's git while a swapper runs", () => {
  test("unconfined, git's walk reads the host folder (the race is real)", { timeout: 60_000 }, async () => {
    const { snapshot, canary } = await race();
    let leaked = 0;
    // Until the first hit: usually within ten updates.
    for (let round = 0; round < 30 && leaked === 0; round++) {
      leaked += (await updates(snapshot, canary, 10)).leaked;
    }
    expect(leaked).toBeGreaterThan(0);
  });

  test("in the snapshot's bwrap, no tree and no error holds the host file's name", {
    timeout: 150_000,
  }, async () => {
    const { snapshot, canary } = await race();
    const wrap = await snapshotGitFor(snapshot);
    expect(wrap).toBeDefined();
    snapshot.confine = wrap;
    // Unconfined, about one update in four leaks (above): were the bwrap to let the walk out, 80
    // updates would all miss it with a chance of (3/4)^80, about 1e-10. Confined, nearly every
    // update stops at a link to the folder the sandbox hides (1 to 4 of 80 got through here), so
    // rounds go on past 80 until one got through the swaps too: the walks did happen. A fixed 200
    // took ~28 s of the suite with the swapper spinning a core throughout, and could find none.
    const { leaked, errors, through } = await confinedRounds(snapshot, canary, 80);
    expect(leaked).toBe(0);
    expect(errors.join("\n")).not.toContain(canary);
    expect(through).toBeGreaterThan(0);
  });
});

describe.skipIf(NO_SANDBOX)("the snapshot's git in its bwrap", () => {
  test("is found in PATH's absolute folders only: a `git` left in the workspace does not run there", {
    timeout: 60_000,
  }, async () => {
    const dir = await trustWorkspace({ "README.md": "hi\n" }, { git: true });
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const snapshot = await snapshotWorkspace(dir);
    cleanups.push(() => disposeSnapshot(snapshot));
    // Inside that bwrap only the snapshot's own folder is writable: where the model's git would
    // leave its mark (and could change what the runner's unconfined git reads later).
    const marker = path.join(snapshot.tempDir, "model-git-ran");
    await writeFile(path.join(dir, "git"), `#!/bin/sh\ntouch '${marker}'\nexit 1\n`, { mode: 0o755 });
    snapshot.confine = await snapshotGitFor(snapshot);
    const path0 = process.env.PATH;
    process.env.PATH = `.:${path0 ?? ""}`;
    cleanups.push(async () => {
      process.env.PATH = path0;
    });
    const tree = await updateTree(snapshot);
    const names = await gitOrThrow(["ls-tree", "-r", "--name-only", tree], {
      cwd: snapshot.workTree,
      env: snapshot.env,
    });
    expect(names.split("\n")).toContain("git");
    expect(existsSync(marker)).toBe(false);
  });
});

describe.skipIf(NO_SANDBOX)("the run's sandbox and the snapshot's git", () => {
  const TASK = "model: anthropic:claude-sonnet-4-5\nprompt: x\ntools: [bash, write]\nsandbox: required\n";

  async function sandboxFor(workspace: string, task = TASK) {
    const { spec } = parseTask(task, path.join(workspace, "task.yml"));
    return setupSandbox({ spec, workspace, protectedGlobs: [], env: process.env, trusted: true });
  }

  const command = (snapshot: WorkspaceSnapshot) => ({
    file: "git",
    args: ["status"],
    cwd: snapshot.workTree,
    env: { PATH: "/usr/bin", SECRET: "s" },
  });

  /** What bash's tool does before each command: the sandbox wraps it (and knows one may run). */
  const bashCommandStarts = (sandbox: Awaited<ReturnType<typeof sandboxFor>>, cwd: string) =>
    sandbox.bashPrepare?.(
      { command: "true", cwd, env: { PATH: "/usr/bin" } },
      {
        toolCallId: "t1",
        signal: new AbortController().signal,
        context: { systemPrompt: "", messages: [], tools: [] },
      },
    );

  /** A git workspace, its snapshot, the run's sandbox for `task` and the snapshot git's wrapper. */
  async function wrapperFor(task = TASK) {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const snapshot = await snapshotWorkspace(dir);
    cleanups.push(() => disposeSnapshot(snapshot));
    const sandbox = await sandboxFor(snapshot.root, task);
    cleanups.push(() => sandbox.dispose());
    const wrap = sandbox.snapshotGit?.(snapshot);
    if (wrap === undefined || wrap === "unconfinable") throw new Error(`no wrapper: ${wrap}`);
    return { dir, snapshot, sandbox, wrap };
  }

  test("runs it as is until a command of the model's has started: nothing could swap a folder yet", async () => {
    const { dir, snapshot, sandbox, wrap } = await wrapperFor();
    expect(await wrap(command(snapshot))).toEqual(command(snapshot));
    await bashCommandStarts(sandbox, dir);
    expect(path.basename((await wrap(command(snapshot))).file)).toBe("bwrap");
  });

  test("puts it in a bwrap from the start when command hooks or stdio MCP servers may start processes", async () => {
    const hooked = `${TASK}hooks:\n  after_tool_call:\n    - match: { tool: write }\n      run: "true"\n`;
    const { snapshot, wrap } = await wrapperFor(hooked);
    expect(path.basename((await wrap(command(snapshot))).file)).toBe("bwrap");
  });

  test("puts it in a bwrap until the sandbox is disposed, then runs it as is", async () => {
    const { dir, snapshot, sandbox, wrap } = await wrapperFor();
    await bashCommandStarts(sandbox, dir);
    const wrapped = await wrap(command(snapshot));
    expect(path.basename(wrapped.file)).toBe("bwrap");
    expect(wrapped.args).toContain(snapshot.tempDir);
    expect(wrapped.env).not.toHaveProperty("SECRET");
    snapshot.confine = wrap;
    await writeFile(path.join(dir, "b.txt"), "b\n");
    const names = await gitOrThrow(["ls-tree", "-r", "--name-only", await updateTree(snapshot)], {
      cwd: snapshot.workTree,
      env: snapshot.env,
    });
    expect(names.split("\n")).toContain("b.txt");
    await sandbox.dispose();
    expect(await wrap(command(snapshot))).toEqual(command(snapshot));
  });

  /** A bash command as the run runs it (in the sandbox's session); answers its output. */
  const bashOf = (sandbox: Awaited<ReturnType<typeof sandboxFor>>, dir: string) => {
    const tool = runnerBashTool(sandbox, dir);
    return async (command: string) => textOf(await run(tool, { command }));
  };

  test("runs it as is again once every command of the model's has ended in the session", async () => {
    const { dir, snapshot, sandbox, wrap } = await wrapperFor();
    const bash = bashOf(sandbox, dir);
    expect(await bash("echo ran; ls /proc | grep -c '^[0-9]'")).toContain("ran");
    expect(await wrap(command(snapshot))).toEqual(command(snapshot));
  }, 30_000);

  test("puts it in a bwrap while a process of the model's lives on in the session, then as is once it is gone", async () => {
    const { dir, snapshot, sandbox, wrap } = await wrapperFor();
    const bash = bashOf(sandbox, dir);
    const m = `300.${process.pid}${Date.now() % 100_000}`;
    // Its own session and group: the end of the command's leader does not take it along.
    // A moment before the command ends: its group is killed then, and setsid must have run.
    await bash(`setsid sleep ${m} </dev/null >/dev/null 2>&1 & sleep 0.2; echo started`);
    expect(processesWith(`sleep ${m}`).length).toBe(1);
    expect(path.basename((await wrap(command(snapshot))).file)).toBe("bwrap");
    for (const pid of processesWith(`sleep ${m}`)) process.kill(pid, "SIGKILL");
    // Gone from the host's view once its command line empties, which is before it has finished
    // exiting; until then the session rightly says it lives.
    let wrapped = await wrap(command(snapshot));
    for (let i = 0; i < 100 && path.basename(wrapped.file) === "bwrap"; i++) {
      await sleep(20);
      wrapped = await wrap(command(snapshot));
    }
    expect(processesWith(`sleep ${m}`)).toEqual([]);
    expect(wrapped).toEqual(command(snapshot));
  }, 30_000);

  test("never as is while a swapper of the model's runs in the session: no tree and no error holds the host file's name", {
    timeout: 120_000,
  }, async () => {
    const { dir, snapshot, sandbox, wrap } = await wrapperFor();
    const canary = await linksToHost(dir);
    snapshot.confine = wrap;
    const bash = bashOf(sandbox, dir);
    await bash(
      `setsid perl -e '${SWAPPER}' ${NAMES.join(" ")} </dev/null >/dev/null 2>&1 & sleep 0.2; echo started`,
    );
    cleanups.push(async () => {
      for (const pid of processesWith(SWAPPER)) process.kill(pid, "SIGKILL");
    });
    expect(processesWith(SWAPPER).length).toBe(1);
    // As in the test of the bwrap alone above: rounds until some updates got through the swaps.
    const { leaked, errors, through } = await confinedRounds(snapshot, canary, 40);
    expect(leaked).toBe(0);
    expect(errors.join("\n")).not.toContain(canary);
    expect(through).toBeGreaterThan(0);
  });

  test("is unconfinable when the sandbox hides the repository around a workspace folder", async () => {
    // The repository's top level, in /tmp, is hidden in the sandbox but for the workspace folder.
    const repo = await trustWorkspace({ "sub/a.txt": "a\n", "top.txt": "t\n" }, { git: true });
    cleanups.push(() => rm(repo, { recursive: true, force: true }));
    const snapshot = await snapshotWorkspace(path.join(repo, "sub"));
    cleanups.push(() => disposeSnapshot(snapshot));
    expect(snapshot.workTree).not.toBe(snapshot.root);
    const sandbox = await sandboxFor(snapshot.root);
    cleanups.push(() => sandbox.dispose());
    expect(sandbox.snapshotGit?.(snapshot)).toBe("unconfinable");
  });
});
