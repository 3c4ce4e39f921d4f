import { fstatSync, openSync, readdirSync, statSync, writeSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { createBashOutput } from "../src/tools/bash-output.ts";
import { createOutputGuard } from "../src/tools/output-guard.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { type EventLine, resultText, runScriptedCli, toolEnds } from "./helpers/scripted-cli.ts";
import { processesWith, trustWorkspace } from "./helpers/trust.ts";

const MiB = 1024 * 1024;
const TASK = (sandbox: string, caps: string, extra = "") =>
  `model: anthropic:claude-sonnet-4-5\nprompt: print\ntools: [bash, read]\nsandbox: ${sandbox}\ncaps: ${caps}\n${extra}`;
const bash = (command: string) => ({ name: "bash", arguments: { command } });
const done = { text: "done" };

const dirs: string[] = [];
const markers: string[] = [];
afterEach(async () => {
  // An unsandboxed process that left its group outlives the run; the test ends it.
  for (const marker of markers.splice(0)) for (const pid of processesWith(marker)) killQuietly(pid);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
}

async function workspace(files: Record<string, string> = {}): Promise<string> {
  const dir = await trustWorkspace({ "a.txt": "a\n", ...files }, { git: true });
  dirs.push(dir);
  return dir;
}

/** Bytes the files in `dir` hold now (0 when it does not exist). */
function folderBytes(dir: string): number {
  let sum = 0;
  for (const name of safeList(dir)) sum += sizeOf(path.join(dir, name));
  return sum;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Samples `measure` every 10 ms while the run goes on; `max()` is the largest value seen. */
function sampler(measure: () => number): {
  whileRunning: (pid: number, exited: AbortSignal) => Promise<void>;
  max: () => number;
} {
  let max = 0;
  return {
    whileRunning: async (_pid, exited) => {
      while (!exited.aborted) {
        max = Math.max(max, measure());
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    max: () => max,
  };
}

const modes = [
  { name: "unsandboxed", sandbox: "off", skip: false },
  { name: "sandboxed", sandbox: "required", skip: NO_SANDBOX },
];

describe.each(modes)("a command's saved output ($name)", ({ sandbox, skip }) => {
  test.skipIf(skip)(
    "`yes` for several seconds is stopped at the cap; the file never holds more; the model is told",
    async () => {
      const dir = await workspace();
      const toolOutput = path.join(dir, ".agent-run", "tool-output");
      const watch = sampler(() => folderBytes(toolOutput));
      const run = await runScriptedCli(
        dir,
        TASK(sandbox, "{ command_output: 4MiB }"),
        // Without the cap, `yes` runs until the call's 4 s timeout and leaves gigabytes behind.
        [{ tool_calls: [{ name: "bash", arguments: { command: "yes", timeout: 4 } }] }, done],
        { whileRunning: watch.whileRunning },
      );
      const max = watch.max();
      expect(run.code).toBe(0);
      const [end] = toolEnds(run.events);
      const text = resultText(end!);
      expect(end!.isError).toBe(true);
      expect(text).not.toContain("timed out");
      expect(text).toContain("Command stopped (its process group was killed)");
      expect(text).toContain("the cap of 4MiB on one command's saved output (caps.command_output)");
      expect(text).toMatch(/its first 4\.0 MiB are kept in \S+tool-output\/agent-run-bash-\S+\.log/);
      expect(text).toMatch(/^y\ny\n/);
      const details = end!.result!.details as { outputStop: Record<string, number | string> };
      expect(details.outputStop).toMatchObject({ reason: "command", capBytes: 4 * MiB, keptBytes: 4 * MiB });
      expect(details.outputStop.writtenBytes).toBeGreaterThanOrEqual(4 * MiB);
      // Stopped long before the timeout: the call took well under its four seconds.
      const duration = (end as unknown as { durationMs: number }).durationMs;
      expect(duration).toBeLessThan(3500);
      expect(folderBytes(toolOutput)).toBe(4 * MiB);
      // One check interval of `yes` at most on top of the cap, never the gigabytes it writes in 4 s.
      expect(max).toBeLessThan(4 * MiB + 200 * MiB);
    },
    60_000,
  );

  test.skipIf(skip)(
    "a writer that left the command's group (setsid) is cut back while the run goes on",
    async () => {
      // 1 MiB every 10 ms (about 100 MiB/s) into the command's own output file, from a new session.
      const dir = await workspace({
        "writer.sh": "while :; do head -c 1048576 /dev/zero | tr '\\0' x; sleep 0.01; done\n",
      });
      const marker = `agent-run-escapee-${process.pid}-${Date.now()}`;
      markers.push(marker);
      const toolOutput = path.join(dir, ".agent-run", "tool-output");
      const watch = sampler(() => folderBytes(toolOutput));
      const writer = `setsid -f bash -c 'exec -a ${marker} bash writer.sh'`;
      const run = await runScriptedCli(
        dir,
        TASK(sandbox, "{ command_output: 2MiB }"),
        [
          { tool_calls: [bash(`${writer}; sleep 10`)] },
          { tool_calls: [bash("sleep 2.5; echo later")] },
          done,
        ],
        { whileRunning: watch.whileRunning },
      );
      const max = watch.max();
      expect(run.code).toBe(0);
      const [first, second] = toolEnds(run.events);
      expect(resultText(first!)).toContain("caps.command_output");
      expect(resultText(second!)).toContain("later");
      // Without the guard the file grows by ~250 MiB while the second command sleeps.
      expect(max).toBeLessThan(2 * MiB + 48 * MiB);
    },
    60_000,
  );

  test.skipIf(skip)(
    "all saved outputs together stay under saved_outputs: the oldest file goes first",
    async () => {
      const dir = await workspace();
      const print = (n: number) => bash(`head -c ${n * MiB} /dev/zero | tr '\\0' 'x' | fold -w 100`);
      const run = await runScriptedCli(dir, TASK(sandbox, "{ command_output: 8MiB, saved_outputs: 5MiB }"), [
        { tool_calls: [print(3)] },
        { tool_calls: [print(3)] },
        { tool_calls: [print(6)] },
        done,
      ]);
      expect(run.code).toBe(0);
      const [first, second, third] = toolEnds(run.events);
      const saved = (event: EventLine | undefined) =>
        (event?.result?.details as { fullOutputPath?: string } | undefined)?.fullOutputPath ?? "";
      expect(resultText(first!)).toContain("elided");
      expect(resultText(second!)).toContain("elided");
      // The third passes the run's total alone: stopped for it, with what the total still allowed.
      expect(resultText(third!)).toContain(
        "the cap of 5MiB on all saved outputs of this run (caps.saved_outputs)",
      );
      const toolOutput = path.join(dir, ".agent-run", "tool-output");
      const files = safeList(toolOutput).map((name) => path.join(toolOutput, name));
      expect(saved(first)).not.toBe("");
      expect(files).not.toContain(saved(first));
      expect(files).not.toContain(saved(second));
      expect(files).toEqual([saved(third)]);
      expect(folderBytes(toolOutput)).toBeLessThanOrEqual(5 * MiB);
    },
    60_000,
  );
});

describe("a command hook's output", () => {
  test("a hook printing without end is stopped at the cap, not at its timeout", async () => {
    const dir = await workspace();
    const run = await runScriptedCli(
      dir,
      TASK(
        "off",
        "{ command_output: 1MiB }",
        "hooks:\n  after_tool_call:\n    - match: { tool: read }\n      run: yes\n      timeout: 20s\n",
      ),
      [{ tool_calls: [{ name: "read", arguments: { path: "a.txt" } }] }, done],
    );
    expect(run.code).toBe(0);
    const [end] = toolEnds(run.events);
    expect(resultText(end!)).toContain(
      "[after_tool_call `yes` was stopped: its output passed the cap of 1MiB (caps.command_output); its result is unknown]",
    );
    const hookEnd = run.events.find((event) => event.type === "hook_end") as unknown as {
      durationMs: number;
    };
    expect(hookEnd.durationMs).toBeLessThan(10_000);
  }, 60_000);
});

describe("the pipe fallback (no output file could be created)", () => {
  test("its spill stops at maxSavedBytes and asks once for the command to stop", async () => {
    const dir = await workspace();
    let stops = 0;
    const output = createBashOutput({
      maxLines: 10,
      maxBytes: 100,
      spillDir: path.join(dir, "spill"),
      spillName: "t",
      maxSavedBytes: 10_000,
      onStop: () => stops++,
    });
    for (let i = 0; i < 50; i++) output.write(Buffer.alloc(1000, "y"));
    output.close();
    const view = output.view();
    expect(stops).toBe(1);
    expect(sizeOf(view.fullOutputPath!)).toBe(10_000);
    expect(output.stop()).toEqual({
      reason: "command",
      capBytes: 10_000,
      keptBytes: 10_000,
      writtenBytes: 50_000,
    });
  });
});

describe("the guard's watch on finished commands' files", () => {
  test("at most maxLingering descriptors are kept; the oldest quiet one is let go first", async () => {
    const dir = await workspace();
    const guard = createOutputGuard({
      commandCapBytes: 1000,
      totalCapBytes: 10_000,
      linger: true,
      maxLingering: 2,
    });
    const files = [0, 1, 2].map((i) => {
      const file = path.join(dir, `out-${i}.log`);
      const fd = openSync(file, "a");
      writeSync(fd, "x".repeat(100));
      return { file, fd };
    });
    for (const { file, fd } of files) guard.watch({ fd, path: file }, () => {}).end(true);
    // The first was let go: its descriptor is closed, the others are still held by the guard.
    expect(() => fstatSync(files[0]!.fd)).toThrow();
    expect(fstatSync(files[1]!.fd).size).toBe(100);
    expect(fstatSync(files[2]!.fd).size).toBe(100);
    expect(guard.heldBytes()).toBe(300);
    guard.dispose();
    expect(() => fstatSync(files[2]!.fd)).toThrow();
  });
});
