import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { OWNER_MARKER_VAR } from "../src/system/reaper.ts";
import { createBashTool } from "../src/tools/index.ts";
import { isAlive, waitGone } from "./helpers/cli.ts";
import { until } from "./helpers/patch-run.ts";
import { runnerBashTool, runnerSandbox } from "./helpers/run-sandbox.ts";
import { processesWith } from "./helpers/trust.ts";
import { run, textOf } from "./tools-support.ts";

/**
 * Without a sandbox, the bash tool's commands are started by the exec server run as a plain child
 * process (sandbox/command-server.ts) instead of by the runner: what a command gets and how it
 * ends must be what `runProcess` gives, whichever of the two started it.
 */
const TASK = "model: anthropic:claude-sonnet-4-5\nprompt: server\ntools: [bash]\nsandbox: off\n";
let markers = 0;
const marker = () => `310.${process.pid}${(Date.now() % 10_000) + 10 * ++markers}`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}

/** The run's unsandboxed set-up as the runner makes it, and its bash tool. */
async function unsandboxedRun() {
  const { dir, sandbox, warnings } = await runnerSandbox(TASK, cleanups, { toolOutputDir: true });
  expect(sandbox.state).toBe("unsandboxed");
  const tool = runnerBashTool(sandbox, dir);
  const call = async (command: string, extra: { timeout?: number; signal?: AbortSignal } = {}) => {
    const result = await run(
      tool,
      { command, ...(extra.timeout !== undefined && { timeout: extra.timeout }) },
      extra.signal ? { signal: extra.signal } : {},
    );
    return { text: textOf(result), details: result.details };
  };
  /** The PID of the process that started a command now. */
  const starter = async () => Number((await call("echo $PPID")).text.trim().split("\n")[0]);
  /** Waits until commands are started by the server; returns its PID. */
  const serverLive = async () => {
    for (let i = 0; i < 200; i++) {
      const pid = await starter();
      if (pid !== process.pid) return pid;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error("the command server never took a command");
  };
  return { dir, sandbox, call, starter, serverLive, warnings };
}

describe("unsandboxed bash commands started by the command server", () => {
  test("the first command does not wait for the server; later ones are its children, the server the runner's", async () => {
    const { starter, serverLive, warnings, dir } = await unsandboxedRun();
    // The server starts with the first command, which the runner starts meanwhile.
    expect(await starter()).toBe(process.pid);
    const server = await serverLive();
    expect(server).not.toBe(process.pid);
    expect(cmdline(server)).toMatch(/ -e "use strict"/);
    expect(readFileSync(`/proc/${server}/stat`, "utf8").split(") ")[1]?.split(" ")[1]).toBe(
      String(process.pid),
    );
    // Its own environment holds nothing of the runner's but PATH and the owner marker (and, where
    // it was started through the process cap's shell, the PWD that shell exports: its folder).
    const entries = readFileSync(`/proc/${server}/environ`, "utf8").split("\0").filter(Boolean);
    const names = entries.map((entry) => entry.slice(0, entry.indexOf("="))).sort();
    expect(names.filter((name) => name !== "PWD")).toEqual([OWNER_MARKER_VAR, "PATH"].sort());
    const pwd = entries.find((entry) => entry.startsWith("PWD="));
    if (pwd !== undefined) expect(pwd).toBe(`PWD=${dir}`);
    expect(warnings).toEqual([]);
  });

  test("under the run's pids cgroup the server is in it, and what it starts runs as it is, with no move of its own", async (ctx) => {
    const { call, serverLive, sandbox } = await unsandboxedRun();
    if (!/a pids cgroup/.test(sandbox.capNote ?? "")) {
      // .ci/run sets this where it runs as root: there the cgroup must be made, not skipped.
      if (process.env.AGENT_RUN_REQUIRE_CGROUP === "1") throw new Error(`no pids cgroup: ${sandbox.capNote}`);
      ctx.skip();
    }
    await serverLive();
    const group = `agent-run-${process.pid}-`;
    const out = (
      await call(
        "tr '\\0' ' ' < /proc/$$/cmdline; echo; echo parent; cat /proc/$PPID/cgroup; echo self; cat /proc/self/cgroup",
      )
    ).text;
    const [argv, rest] = out.split("\nparent\n");
    const [parent, self] = (rest ?? "").split("\nself\n");
    // The server joined the group when it started, so its fork put the command there at once: a
    // move of the command's own (a write to cgroup.procs, an RCU grace period) is not in its script.
    expect(argv).toContain("bash -c tr ");
    expect(argv).not.toContain("cgroup.procs");
    expect(parent).toContain(group);
    expect(self).toContain(group);
  });

  test("a command's environment is the one runProcess gives, owner marker included", async () => {
    const { call, serverLive, dir } = await unsandboxedRun();
    await serverLive();
    const listing = "cat /proc/self/environ | tr '\\0' '\\n' | grep -v '^_=' | sort";
    const fromServer = (await call(listing)).text;
    // The same command through runProcess, as the runner started every command before.
    const tool = createBashTool(dir, { env: process.env, spillDir: path.join(dir, "spill") });
    const fromRunner = textOf(await run(tool, { command: listing }));
    expect(fromServer).toContain(`${OWNER_MARKER_VAR}=`);
    expect(fromServer).toBe(fromRunner);
  });

  test("a command killed by a signal reads as from runProcess; a timeout ends its group", async () => {
    const { call, serverLive } = await unsandboxedRun();
    await serverLive();
    const killed = await call("echo before; kill -9 $$");
    expect(killed.details.signal).toBe("SIGKILL");
    expect(killed.details.exitCode).toBeUndefined();
    expect(killed.text).toContain("Command killed by SIGKILL.");

    const m = marker();
    const timedOut = await call(`sleep ${m}1 & echo $! > /dev/null; sleep ${m}2`, { timeout: 1 });
    expect(timedOut.details.timedOut).toBe(true);
    expect(timedOut.text).toContain("timed out");
    await until(() => processesWith(`sleep ${m}`).length === 0, 5000);
    expect(processesWith(`sleep ${m}`)).toEqual([]);
  });

  test("an aborted command is killed with its group", async () => {
    const { call, serverLive } = await unsandboxedRun();
    await serverLive();
    const m = marker();
    const controller = new AbortController();
    const running = call(`sleep ${m}1 & sleep ${m}2`, { signal: controller.signal });
    await until(() => processesWith(`sleep ${m}`).length >= 2, 10_000);
    controller.abort();
    const result = await running;
    expect(result.details.aborted).toBe(true);
    await until(() => processesWith(`sleep ${m}`).length === 0, 5000);
    expect(processesWith(`sleep ${m}`)).toEqual([]);
  });

  test("when the server dies, the next command is started by the runner, with a warning", async () => {
    const { starter, serverLive, warnings } = await unsandboxedRun();
    const server = await serverLive();
    process.kill(server, "SIGKILL");
    expect(await waitGone(server, 5000)).toBe(true);
    await until(() => warnings.length > 0, 5000);
    expect(await starter()).toBe(process.pid);
    expect(warnings.join("\n")).toMatch(/process that starts bash commands stopped .*started by the runner/);
  });

  test("the run's end ends the server and what its commands still run in their groups", async () => {
    const { sandbox, call, serverLive } = await unsandboxedRun();
    const server = await serverLive();
    const m = marker();
    // A command still running at the end (the run stopped it), with a child in its group.
    void call(`sleep ${m}1 & sleep ${m}2`);
    await until(() => processesWith(`sleep ${m}`).length >= 2, 10_000);
    await sandbox.dispose();
    expect(isAlive(server)).toBe(false);
    await until(() => processesWith(`sleep ${m}`).length === 0, 5000);
    expect(processesWith(`sleep ${m}`)).toEqual([]);
  });
});
