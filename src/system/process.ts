/**
 * How agent-run runs the commands of a task (the bash tool outside the sandbox session, command
 * hooks): a thin wrapper over execa. git and the bubblewrap probe spawn their short, plain
 * processes themselves.
 *
 * Guarantees: never rejects for a process failure (spawn errors, non-zero exits, signals, timeouts
 * and aborts all come back as a `ProcessResult`); the child runs in its own process group and on
 * timeout or abort the whole group is killed (SIGTERM, then SIGKILL after `killGraceMs`),
 * grandchildren included; once the child itself exits, anything it left running in its group is
 * killed too (unless `keepBackground`), so a stray `sleep 100 &` neither outlives the call nor holds
 * its output pipe open; memory stays bounded whatever the child prints (head and tail kept).
 *
 * With `outputFile`, the child's stdout and stderr are that file descriptor itself (no pipe): the
 * output never passes through this process, so a child printing gigabytes costs no memory here.
 *
 * No child outlives the runner, however the runner ends: each group is also watched by the reaper
 * (./reaper.ts), which kills it, and whatever carries the runner's marker variable, when the runner
 * dies without its exit hook (SIGKILL).
 */
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { createHeadTailBuffer, type HeadTailBuffer } from "./head-tail-buffer.ts";
import { killMarkedProcesses, ownerMarkerEnv, watchGroup } from "./reaper.ts";
import { isTimerDelay } from "./timer.ts";

/** Default bytes of stdout and of stderr kept in memory: 1 MiB. */
export const DEFAULT_PROCESS_MAX_BUFFER = 1024 * 1024;
/** Default delay between SIGTERM and SIGKILL when a process group is killed: 2000 ms. */
export const DEFAULT_KILL_GRACE_MS = 2000;

export interface RunProcessOptions {
  cwd: string;
  /** Variables added to (or, with `extendEnv: false`, replacing) the parent's environment. */
  env?: Record<string, string | undefined>;
  /** When false, replace the env instead of extending process.env. Default: true. */
  extendEnv?: boolean;
  /** Written to the child's stdin, which is then closed. Without it stdin is /dev/null. */
  input?: string;
  /** Kill the process group after this many milliseconds. Default (and above 2^31-1): no timeout. */
  timeoutMs?: number;
  /** Aborting kills the process group; the result then has `canceled: true`. */
  signal?: AbortSignal;
  /** Stream chunks of combined stdout+stderr as they arrive (decoded as UTF-8). */
  onOutput?: (chunk: string) => void;
  /** Raw chunks of combined stdout+stderr as they arrive, for callers that spill output to disk. */
  onOutputBytes?: (chunk: Buffer) => void;
  /** Bytes of stdout and of stderr kept in memory (head+tail kept). Default: 1 MiB. */
  maxBuffer?: number;
  /**
   * Kill the process group (as on a timeout) once stdout and stderr together carried more than
   * this many bytes; the result then has `outputCapped: true`. Default: no cap. Unused with `outputFile`.
   */
  maxOutputBytes?: number;
  /** Milliseconds between SIGTERM and SIGKILL when the group is killed. Default: 2000. */
  killGraceMs?: number;
  /** Leave processes the child started in the background running after it exits. Default: false. */
  keepBackground?: boolean;
  /**
   * Give the child this open, writable file descriptor as both stdout and stderr (one file
   * description, so interleaving is the kernel's order). Then `stdout`/`stderr` of the result are
   * empty and `onOutput`/`onOutputBytes`/`maxBuffer` are unused. The caller opens and closes it.
   * Default: stdout and stderr are pipes read here. `path` (the file's path) is for runners that
   * cannot hand the descriptor over, such as the sandbox session, which reopens the file by path.
   */
  outputFile?: { fd: number; path?: string };
}

export interface ProcessResult {
  /** Undefined when the process was killed by a signal or could not be spawned. */
  exitCode: number | undefined;
  /** The signal that ended the process, e.g. "SIGTERM". */
  signal?: string;
  /**
   * Captured stdout; when more than `maxBuffer` bytes came, head and tail joined by an elision
   * marker. Empty with `outputFile`.
   */
  stdout: string;
  stderr: string;
  /** Bytes of stdout / stderr not kept in memory (0 when nothing was cut). */
  stdoutDroppedBytes: number;
  stderrDroppedBytes: number;
  timedOut: boolean;
  canceled: boolean;
  /** True when the group was killed because the output passed `maxOutputBytes`. */
  outputCapped?: boolean;
  durationMs: number;
  /** True unless the process exited with code 0 on its own. */
  failed: boolean;
  /** One line saying what went wrong; empty on success. */
  shortMessage: string;
  /** The underlying error (e.g. a spawn failure), when there was one. */
  cause?: unknown;
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Detached children are not cleaned up by execa; do not leave them behind if we exit first.
  process.once("exit", () => {
    for (const pid of liveGroups) signalGroup(pid, "SIGKILL");
  });
}

/**
 * SIGKILLs the processes that calls of `runProcess` left behind (started in the background, or in a
 * session of their own) and that still run; the groups of calls still running are spared. For the
 * end of a run, before its patch is computed. Returns their PIDs. Never rejects.
 */
export function killLeftoverProcesses(): Promise<number[]> {
  return killMarkedProcesses(liveGroups);
}

/** Sends a signal to a whole process group; returns false when the group no longer exists. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

let execaModule: Promise<typeof import("execa")> | undefined;

/**
 * execa, loaded with the first command: a sandboxed run starts its commands in the sandbox
 * session instead, and never needs it (~25 ms of compiling and running its chunk at start-up).
 */
function loadExeca(): Promise<typeof import("execa")> {
  execaModule ??= import("execa");
  return execaModule;
}

/** Runs `file` with `args` (no shell). See the module comment for the guarantees. */
export async function runProcess(
  file: string,
  args: string[],
  options: RunProcessOptions,
): Promise<ProcessResult> {
  const started = performance.now();
  const maxBuffer = options.maxBuffer ?? DEFAULT_PROCESS_MAX_BUFFER;
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const command = [file, ...args].join(" ");

  const notStarted = (): ProcessResult => ({
    ...emptyResult(started),
    canceled: true,
    failed: true,
    shortMessage: `Command was canceled before it started: ${command}`,
  });
  if (options.signal?.aborted) return notStarted();
  const { execa } = await loadExeca();
  if (options.signal?.aborted) return notStarted();

  installExitHook();
  // execa's types name descriptors 3 to 9 only; at run time it hands any descriptor to spawn.
  const outputFd = options.outputFile?.fd as 3 | undefined;
  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env: { ...options.env, ...ownerMarkerEnv() },
    extendEnv: options.extendEnv ?? true,
    ...(options.input !== undefined ? { input: options.input } : { stdin: "ignore" as const }),
    ...(outputFd !== undefined && { stdout: outputFd, stderr: outputFd }),
    detached: true,
    cleanup: false,
    reject: false,
    buffer: false,
    stripFinalNewline: false,
    windowsHide: true,
  });

  const pid = subprocess.pid;
  if (pid !== undefined) liveGroups.add(pid);
  const unwatch = pid === undefined ? undefined : watchGroup(pid);
  let timedOut = false;
  let canceled = false;
  let killTimer: NodeJS.Timeout | undefined;
  const killGroup = () => {
    if (pid === undefined) return;
    if (!signalGroup(pid, "SIGTERM")) return;
    killTimer ??= setTimeout(() => signalGroup(pid, "SIGKILL"), grace);
    killTimer.unref();
  };

  const timeout = isTimerDelay(options.timeoutMs)
    ? setTimeout(() => {
        timedOut = true;
        killGroup();
      }, options.timeoutMs)
    : undefined;
  const onAbort = () => {
    canceled = true;
    killGroup();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (!options.keepBackground) {
    // The leader is gone; whatever it left in its group would hold our pipes open.
    subprocess.nodeChildProcess.once("exit", () => killGroup());
  }

  const stdout = createHeadTailBuffer(maxBuffer);
  const stderr = createHeadTailBuffer(maxBuffer);
  const decoders = { out: new StringDecoder("utf8"), err: new StringDecoder("utf8") };
  let outputCapped = false;
  const cap = options.maxOutputBytes;
  const onCapped =
    cap === undefined
      ? undefined
      : () => {
          if (outputCapped || stdout.totalBytes + stderr.totalBytes <= cap) return;
          outputCapped = true;
          killGroup();
        };
  capture(subprocess.stdout, stdout, decoders.out, options, onCapped);
  capture(subprocess.stderr, stderr, decoders.err, options, onCapped);

  try {
    const result = await subprocess;
    flushDecoder(decoders.out, options);
    flushDecoder(decoders.err, options);
    const exitCode = typeof result.exitCode === "number" ? result.exitCode : undefined;
    const signal = result.signal ?? undefined;
    const durationMs = Math.round(performance.now() - started);
    const failed = timedOut || canceled || outputCapped || result.failed || exitCode !== 0;
    return {
      exitCode,
      ...(signal !== undefined && { signal }),
      stdout: stdout.toString(),
      stderr: stderr.toString(),
      stdoutDroppedBytes: stdout.droppedBytes,
      stderrDroppedBytes: stderr.droppedBytes,
      timedOut,
      canceled,
      ...(outputCapped ? { outputCapped: true } : {}),
      durationMs,
      failed,
      shortMessage: shortMessageOf({
        outputCapped,
        timedOut,
        canceled,
        failed,
        options,
        command: result.escapedCommand || command,
        result,
      }),
      ...(result.cause !== undefined && { cause: result.cause }),
    };
  } finally {
    if (timeout) clearTimeout(timeout);
    options.signal?.removeEventListener("abort", onAbort);
    if (pid !== undefined) liveGroups.delete(pid);
    unwatch?.();
  }
}

function capture(
  stream: Readable | null,
  buffer: HeadTailBuffer,
  decoder: StringDecoder,
  options: RunProcessOptions,
  onWritten: (() => void) | undefined,
): void {
  if (!stream) return;
  stream.on("data", (chunk: Buffer | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    buffer.write(bytes);
    onWritten?.();
    options.onOutputBytes?.(bytes);
    if (options.onOutput) {
      const text = decoder.write(bytes);
      if (text.length > 0) options.onOutput(text);
    }
  });
}

function flushDecoder(decoder: StringDecoder, options: RunProcessOptions): void {
  if (!options.onOutput) return;
  const rest = decoder.end();
  if (rest.length > 0) options.onOutput(rest);
}

function shortMessageOf(input: {
  outputCapped: boolean;
  timedOut: boolean;
  canceled: boolean;
  failed: boolean;
  options: RunProcessOptions;
  command: string;
  result: { shortMessage?: string; exitCode?: number | undefined; signal?: string | undefined };
}): string {
  const { outputCapped, timedOut, canceled, failed, options, command, result } = input;
  if (outputCapped)
    return `Command was killed: its output passed ${options.maxOutputBytes} bytes: ${command}`;
  if (timedOut) return `Command timed out after ${options.timeoutMs} ms: ${command}`;
  if (canceled) return `Command was canceled: ${command}`;
  if (!failed) return "";
  if (result.shortMessage) return firstLine(result.shortMessage);
  if (result.signal) return `Command was killed with ${result.signal}: ${command}`;
  return `Command failed with exit code ${result.exitCode}: ${command}`;
}

function firstLine(text: string): string {
  const index = text.indexOf("\n");
  return index === -1 ? text : text.slice(0, index);
}

function emptyResult(started: number): ProcessResult {
  return {
    exitCode: undefined,
    stdout: "",
    stderr: "",
    stdoutDroppedBytes: 0,
    stderrDroppedBytes: 0,
    timedOut: false,
    canceled: false,
    durationMs: Math.round(performance.now() - started),
    failed: true,
    shortMessage: "",
  };
}
