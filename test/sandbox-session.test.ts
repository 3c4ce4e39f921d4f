import { readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { AgentContext } from "../src/core/types.ts";
import { createSandboxSession, detectSandbox, prepareSandbox, sandboxEnv } from "../src/sandbox/index.ts";
import { createBashTool, runProcess } from "../src/tools/index.ts";
import { runnerBashTool, runnerSandbox } from "./helpers/run-sandbox.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { processesWith, runScripted, toolOutputs, trustWorkspace } from "./helpers/trust.ts";

const TASK = "model: anthropic:claude-sonnet-4-5\nprompt: session\ntools: [bash, read]\n";
const bash = (command: string) => ({ name: "bash", arguments: { command } });
const done = { text: "done" };
const context: AgentContext = { systemPrompt: "", messages: [], tools: [] };
let markers = 0;
const marker = () => `300.${process.pid}${(Date.now() % 10_000) + 10 * ++markers}`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The run's sandbox as the runner sets it up, and bash tools with and without its session. */
async function sandboxed(options: { withSession?: boolean } = {}) {
  const { dir, sandbox, warnings } = await runnerSandbox(TASK, cleanups);
  expect(sandbox.state).toBe("sandboxed");
  const tool = runnerBashTool(sandbox, dir, { session: options.withSession !== false });
  const call = async (command: string, extra: { timeout?: number; signal?: AbortSignal } = {}) => {
    const result = await tool.execute(
      "call",
      { command, ...(extra.timeout !== undefined && { timeout: extra.timeout }) },
      extra.signal ?? new AbortController().signal,
      () => {},
      context,
    );
    const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    return { text, details: result.details, isError: result.isError === true };
  };
  return { dir, sandbox, call, warnings };
}

describe.skipIf(NO_SANDBOX)("one sandbox session per run for bash", () => {
  test("two calls of a run share it: a file written to /tmp by call 1 is read by call 2", async () => {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const { result, events } = await runScripted(dir, TASK, [
      { tool_calls: [bash("echo shared-$((6*7)) > /tmp/session-file; echo wrote")] },
      { tool_calls: [bash("cat /tmp/session-file; cat /proc/1/cmdline | tr '\\0' ' '")] },
      done,
    ]);
    expect(result.sandbox).toBe("sandboxed");
    const outputs = toolOutputs(events);
    expect(outputs[0]).toContain("wrote");
    expect(outputs[1]).toContain("shared-42");
    // Still bubblewrap's PID namespace: its init is PID 1, the runner is invisible.
    expect(outputs[1]).not.toContain("vitest");
    expect(await readFile(result.outputs.summary, "utf8")).not.toContain("sandbox session");
  }, 60_000);

  test("output, exit codes and signals come back as with a sandbox per call", async () => {
    const session = await sandboxed();
    const perCall = await sandboxed({ withSession: false });
    const commands = [
      "echo out; echo err >&2; exit 3",
      "printf 'no newline'",
      "kill -TERM $$",
      "echo $HOME $TMPDIR; env | grep -c ANTHROPIC || true; ls -A /tmp | wc -l",
      "seq 1 5000",
      "true",
    ];
    const sameDir = (text: string, dir: string) =>
      text.replaceAll(dir, "<workspace>").replace(/call-[\w-]+\.log/, "call.log");
    for (const command of commands) {
      const a = await session.call(command);
      const b = await perCall.call(command);
      expect({
        command,
        text: sameDir(a.text, session.dir),
        exit: a.details.exitCode,
        signal: a.details.signal,
      }).toEqual({
        command,
        text: sameDir(b.text, perCall.dir),
        exit: b.details.exitCode,
        signal: b.details.signal,
      });
    }
    expect(sessionPids(session.dir).length).toBeGreaterThan(0);
    expect(sessionPids(perCall.dir)).toEqual([]);
  }, 60_000);

  test("a timeout kills the command's process group inside the session, which stays up", async () => {
    const { dir, call } = await sandboxed();
    const m = marker();
    const result = await call(`sleep ${m} & sleep ${m}`, { timeout: 0.5 });
    expect(result.details.timedOut).toBe(true);
    expect(result.text).toContain("timed out");
    await waitFor(() => processesWith(`sleep ${m}`).length === 0);
    expect(processesWith(`sleep ${m}`)).toEqual([]);
    expect((await call("echo still-here")).text).toContain("still-here");
    expect(sessionPids(dir).length).toBeGreaterThan(0);
  }, 30_000);

  test("an abort kills the command's process group inside the session", async () => {
    const { call } = await sandboxed();
    const m = marker();
    const controller = new AbortController();
    const running = call(`sleep ${m} & sleep ${m}`, { signal: controller.signal });
    await waitFor(() => processesWith(`sleep ${m}`).length >= 2);
    controller.abort();
    const result = await running;
    expect(result.details.aborted).toBe(true);
    await waitFor(() => processesWith(`sleep ${m}`).length === 0);
    expect(processesWith(`sleep ${m}`)).toEqual([]);
  }, 30_000);

  test("what a command leaves in its group dies with it; a setsid child lives until the session ends", async () => {
    const { sandbox, call } = await sandboxed();
    const grouped = marker();
    const escaped = marker();
    await call(`nohup sleep ${grouped} >/dev/null 2>&1 & echo started`);
    await waitFor(() => processesWith(`sleep ${grouped}`).length === 0);
    // Nothing of the model's lives in the session now (RunSandbox.quiet asks it), once the killed
    // sleep has finished exiting: its command line empties before it leaves the process table,
    // and until then the session rightly says no.
    expect(await eventually(async () => (await sandbox.quiet?.()) === true)).toBe(true);
    await call(`setsid nohup sleep ${escaped} >/dev/null 2>&1 < /dev/null & sleep 0.2; echo started`);
    expect(processesWith(`sleep ${grouped}`)).toEqual([]);
    expect(processesWith(`sleep ${escaped}`).length).toBe(1);
    expect(await sandbox.quiet?.()).toBe(false);
    await sandbox.dispose();
    expect(await sandbox.quiet?.()).toBe(true);
    await waitFor(() => processesWith(`sleep ${escaped}`).length === 0);
    expect(processesWith(`sleep ${escaped}`)).toEqual([]);
  }, 30_000);

  test("once a command ran in a bwrap of its own, the session cannot tell that nothing of the model's lives", async () => {
    const { dir, sandbox, call } = await sandboxed();
    expect((await call("echo in-session")).text).toContain("in-session");
    expect(await sandbox.quiet?.()).toBe(true);
    const prepare = sandbox.bashPrepare;
    if (!prepare?.run) throw new Error("no session run");
    // Without an output file the session does not take a command: it runs in its own bwrap, whose
    // PID namespace the session cannot see into.
    const alone = await prepare(
      { command: "echo alone", cwd: dir, env: { PATH: "/usr/bin:/bin" } },
      { toolCallId: "t", signal: new AbortController().signal, context },
    );
    const result = await prepare.run("bash", ["-c", alone.command], { cwd: alone.cwd, env: alone.env });
    expect(result.exitCode).toBe(0);
    expect(sessionPids(dir).length).toBeGreaterThan(0);
    expect(await sandbox.quiet?.()).toBe(false);
  }, 30_000);

  test("a session that dies falls back to a sandbox per call, noted; never to no sandbox", async () => {
    const { dir, sandbox, call, warnings } = await sandboxed();
    const hostFile = path.join(os.tmpdir(), `agent-run-host-${process.pid}-${Date.now()}`);
    await writeFile(hostFile, "host");
    cleanups.push(() => rm(hostFile, { force: true }));
    expect((await call("echo one > /tmp/from-session; echo ok")).text).toContain("ok");
    const m = marker();
    const running = call(`sleep ${m}`);
    await waitFor(() => processesWith(`sleep ${m}`).length === 1);
    // Kill this session (bwrap and the exec server: their command lines hold the server's source
    // and this workspace's path).
    const server = sessionPids(dir);
    expect(server.length).toBeGreaterThan(0);
    for (const pid of server) process.kill(pid, "SIGKILL");
    const killed = await running;
    expect(killed.details.exitCode).toBeUndefined();
    await waitFor(() => processesWith(`sleep ${m}`).length === 0);
    const after = await call(
      `cat /tmp/from-session 2>&1 || echo no-session-tmp; cat ${hostFile} 2>&1 || echo host-hidden; echo $((1+1))`,
    );
    expect(after.text).toContain("no-session-tmp");
    expect(after.text).toContain("host-hidden");
    expect(after.text).toContain("2");
    expect(sandbox.notes.join("\n")).toMatch(/sandbox session for bash and the file tools stopped/);
    // The log hears of it when it happens, not only the summary at the end.
    expect(warnings).toEqual(sandbox.notes);
  }, 30_000);
});

/** The PIDs of the session (bwrap and the exec server) of the workspace `dir`. */
function sessionPids(dir: string): number[] {
  return processesWith('"use strict"').filter((pid) => processesWith(dir).includes(pid));
}

/** Whether `check` comes true within `ms`, asked every 20 ms. */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
}

describe.skipIf(NO_SANDBOX)("a session that cannot start", () => {
  test("every call runs in a sandbox of its own, and the reason is reported once", async () => {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    const support = await detectSandbox();
    const prepared = await prepareSandbox({
      bwrapPath: support.bwrapPath ?? "bwrap",
      workspace: dir,
      protectedGlobs: [".git", ".git/**"],
      env: process.env,
    });
    const downs: string[] = [];
    const session = createSandboxSession({
      policy: prepared.policy,
      serverEnv: sandboxEnv(process.env, { home: prepared.policy.home }),
      fallback: runProcess,
      onDown: (reason) => downs.push(reason),
      nodePath: "/nonexistent/node",
    });
    cleanups.push(async () => {
      await session.dispose();
      await prepared.dispose();
      await rm(dir, { recursive: true, force: true });
    });
    const tool = createBashTool(dir, {
      env: process.env,
      spillDir: path.join(dir, ".agent-run", "tool-output"),
      prepare: (execution) => {
        const env = sandboxEnv(execution.env, { home: prepared.policy.home });
        const command = prepared.wrapScript(execution.command, execution.cwd, execution.env);
        session.remember(command, { script: execution.command, cwd: execution.cwd, env });
        return { command, cwd: execution.cwd, env };
      },
      operations: { run: session.run },
    });
    for (const n of [1, 2]) {
      const result = await tool.execute(
        "call",
        { command: `echo call-${n}; cat /proc/1/cmdline | tr '\\0' ' '; exit 4` },
        new AbortController().signal,
        () => {},
        context,
      );
      const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      expect(text).toContain(`call-${n}`);
      expect(text).toContain("bwrap");
      expect(result.details.exitCode).toBe(4);
    }
    expect(session.state).toBe("down");
    expect(downs.length).toBe(1);
    expect(await session.quiet()).toBe(false);
  }, 30_000);
});
