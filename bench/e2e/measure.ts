/**
 * Runs one child process under GNU time and measures it: wall time on this process's clock
 * (spawn to exit, in ms), peak RSS of the child (GNU time's `%M`: the largest resident set of the
 * process or any child it reaped, in KB) and, on request, the time to its first output line.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** GNU time; the one method this bench uses for peak RSS (see docs/benchmarks.md). */
export const GNU_TIME = "/usr/bin/time";

export interface Measured {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Spawn to exit, ms. Includes GNU time's own fork and exec (well under 1 ms). */
  wallMs: number;
  /** `performance.now()` of this process just before the spawn and at the child's exit. */
  startedAt: number;
  exitedAt: number;
  /** Peak resident set of the measured process, KB; undefined when GNU time is missing. */
  peakRssKb: number | undefined;
  /**
   * CPU time (user + system) of the process and the children it reaped (bash, bwrap), ms, at GNU
   * time's 10 ms resolution; undefined when GNU time is missing. Less disturbed than wall time by
   * other work on the machine.
   */
  cpuMs: number | undefined;
  /** Spawn to the first byte on stdout or stderr, ms; undefined when it printed nothing. */
  firstOutputMs: number | undefined;
  stdout: string;
  stderr: string;
}

export interface MeasureOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Kill the child (SIGKILL) after this long. Default: 120 000 ms. */
  timeoutMs?: number;
}

/** Whether peak RSS can be measured on this machine. */
export function canMeasureRss(): boolean {
  return existsSync(GNU_TIME);
}

/**
 * Runs `command args` and resolves when it has exited and its pipes closed. Never rejects for a
 * non-zero exit: the caller checks `code` (a broken scenario must fail the bench, a slow one not).
 */
export async function measure(
  command: string,
  args: string[],
  options: MeasureOptions = {},
): Promise<Measured> {
  const withTime = canMeasureRss();
  const dir = withTime ? await mkdtemp(path.join(os.tmpdir(), "agent-run-bench-time-")) : undefined;
  const rssFile = dir ? path.join(dir, "rss") : "";
  const [file, argv] = withTime
    ? [GNU_TIME, ["-f", "%M %U %S", "-o", rssFile, command, ...args]]
    : [command, args];
  const started = performance.now();
  const child = spawn(file, argv, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let firstOutputMs: number | undefined;
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  const onFirst = () => {
    firstOutputMs ??= performance.now() - started;
  };
  child.stdout.on("data", (chunk: Buffer) => {
    onFirst();
    stdout.push(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    onFirst();
    stderr.push(chunk);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
  const { code, signal, wallMs, exitedAt } = await new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    wallMs: number;
    exitedAt: number;
  }>((resolve, reject) => {
    let exitedAt = 0;
    child.on("error", reject);
    child.on("exit", () => {
      exitedAt = performance.now();
    });
    child.on("close", (exitCode, exitSignal) => {
      exitedAt ||= performance.now();
      resolve({ code: exitCode, signal: exitSignal, wallMs: exitedAt - started, exitedAt });
    });
  }).finally(() => clearTimeout(timer));
  let peakRssKb: number | undefined;
  let cpuMs: number | undefined;
  if (dir) {
    const text = await readFile(rssFile, "utf8").catch(() => "");
    // GNU time prefixes "Command exited with non-zero status N" on failure; the figures are the last line.
    const figures = /^(\d+) ([\d.]+) ([\d.]+)$/.exec(text.trim().split("\n").at(-1) ?? "");
    if (figures) {
      peakRssKb = Number(figures[1]);
      cpuMs = Math.round((Number(figures[2]) + Number(figures[3])) * 1000);
    }
    await rm(dir, { recursive: true, force: true });
  }
  return {
    code,
    signal,
    wallMs,
    startedAt: started,
    exitedAt,
    peakRssKb,
    cpuMs,
    firstOutputMs,
    stdout: Buffer.concat(stdout).toString("utf8"),
    stderr: Buffer.concat(stderr).toString("utf8"),
  };
}

/** Throws, with the child's stderr, unless it exited with `expected`: a broken scenario stops the bench. */
export function expectExit(result: Measured, expected: number, what: string): void {
  if (result.code === expected) return;
  const tail = result.stderr.trim().split("\n").slice(-15).join("\n");
  throw new Error(
    `${what}: exited ${result.code ?? result.signal} (expected ${expected})\n${tail || result.stdout.slice(-2000)}`,
  );
}
