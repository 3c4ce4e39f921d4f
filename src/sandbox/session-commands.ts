/**
 * The bash half of a sandbox session: `run` with `runProcess`'s contract (never rejects; timeout →
 * `timedOut`, abort → `canceled`; the command's group is killed, SIGTERM then SIGKILL after the
 * grace) for the commands the sandbox's `prepare` wrapped and `remember`ed, run by the exec server.
 * Anything else, and every call once the session could not start or died, runs as given: the
 * per-call bwrap command that `prepare` returned. It never runs a command unsandboxed.
 *
 * The same for a run without a sandbox (command-server.ts): the server runs unsandboxed, and a
 * command it does not take runs as given, unsandboxed as before.
 */
import { fchmodSync } from "node:fs";
import { constants as osConstants } from "node:os";
import path from "node:path";
import type { ProcessResult, RunProcessOptions, runProcess } from "../system/process.ts";
import { isTimerDelay } from "../system/timer.ts";
import type { ServerReply, SessionChannel } from "./session-channel.ts";

const DEFAULT_GRACE_MS = 2000;

/** A command as the bash tool would run it without the sandbox. */
export interface SessionCommand {
  script: string;
  cwd: string;
  env: Record<string, string>;
}

export interface SessionCommands {
  remember(wrapped: string, command: SessionCommand): void;
  run: typeof runProcess;
  forgetAll(): void;
  /** Whether a command ran through the fallback (its processes live, if at all, outside the server's namespace). */
  readonly fellBack: boolean;
}

export function createSessionCommands(
  channel: SessionChannel,
  options: {
    fallback: typeof runProcess;
    toolOutputDir: string | undefined;
    /**
     * Told each command's PID (its group's) when it starts; what it returns is called when the
     * command has finished. For a server whose PIDs are the host's (one without bwrap).
     */
    watch?: (pid: number) => () => void;
    /**
     * How a command ended by a signal is reported: as bwrap reports its child's (exit code 128+n,
     * the default, so a sandboxed command reads the same in the session and in its own bwrap), or
     * as `runProcess` reports it (no exit code, the signal's name).
     */
    signals?: "as-bwrap" | "as-runProcess";
    /**
     * A command that comes before the server is live starts it in the background and runs through
     * `fallback` meanwhile, instead of waiting for it. For a fallback that is as good as the server,
     * only slower per command (the runner's own spawn, for a run without a sandbox).
     */
    fallbackWhileStarting?: boolean;
  },
): SessionCommands {
  const remembered = new Map<string, { command: SessionCommand; uses: number }>();
  let fellBack = false;
  const fallback: typeof runProcess = (file, args, runOptions) => {
    fellBack = true;
    return options.fallback(file, args, runOptions);
  };

  const runInSession = async (
    command: SessionCommand,
    runOptions: RunProcessOptions,
    output: { fd: number; path: string },
    startedAt: number,
  ): Promise<ProcessResult> => {
    const grace = runOptions.killGraceMs ?? DEFAULT_GRACE_MS;
    let id = 0;
    let timedOut = false;
    let canceled = false;
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      channel.notify({ op: "kill", id, graceMs: grace });
    };
    // The server reopens the file by path: writable for its owner until then (it makes it
    // read-only again before the command starts; see bash-output-file.ts).
    try {
      fchmodSync(output.fd, 0o600);
    } catch {}
    const result = await new Promise<ProcessResult>((resolve) => {
      let timeout: NodeJS.Timeout | undefined;
      const onAbort = () => {
        canceled = true;
        kill();
      };
      let unwatch: (() => void) | undefined;
      const finish = (result: ProcessResult) => {
        unwatch?.();
        if (timeout) clearTimeout(timeout);
        runOptions.signal?.removeEventListener("abort", onAbort);
        channel.forget(id);
        resolve(result);
      };
      const base = () => ({
        stdout: "",
        stderr: "",
        stdoutDroppedBytes: 0,
        stderrDroppedBytes: 0,
        timedOut,
        canceled,
        durationMs: Math.round(performance.now() - startedAt),
      });
      id = channel.send(
        {
          op: "start",
          script: command.script,
          cwd: command.cwd,
          env: command.env,
          output: output.path,
          graceMs: grace,
        },
        {
          onReply(reply) {
            if (reply.event === "started" && typeof reply.pid === "number") {
              unwatch = options.watch?.(reply.pid);
              return;
            }
            if (reply.event !== "finished") return;
            if (reply.error !== undefined) {
              finish({
                ...base(),
                exitCode: undefined,
                failed: true,
                shortMessage: `the sandbox session could not start the command: ${reply.error}`,
              });
              return;
            }
            finish(finishedResult(reply, base(), runOptions.timeoutMs, options.signals ?? "as-bwrap"));
          },
          onDown(reason) {
            finish({
              ...base(),
              exitCode: undefined,
              signal: "SIGKILL",
              failed: true,
              shortMessage: `the sandbox session ended while the command ran (${reason})`,
            });
          },
        },
      );
      if (isTimerDelay(runOptions.timeoutMs)) {
        timeout = setTimeout(() => {
          timedOut = true;
          kill();
        }, runOptions.timeoutMs);
      }
      runOptions.signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      fchmodSync(output.fd, 0o400);
    } catch {}
    return result;
  };

  const run: typeof runProcess = async (file, args, runOptions) => {
    const startedAt = performance.now();
    const script = args.length === 2 && args[0] === "-c" ? args[1] : undefined;
    const entry = file === "bash" && script !== undefined ? remembered.get(script) : undefined;
    if (entry && --entry.uses === 0 && script !== undefined) remembered.delete(script);
    const output = runOptions.outputFile;
    if (!entry || output?.path === undefined || channel.state === "down")
      return fallback(file, args, runOptions);
    const outputPath = output.path;
    const outputDir = path.dirname(outputPath);
    if (runOptions.signal?.aborted) return fallback(file, args, runOptions);
    const starting = channel.start(options.toolOutputDir ?? outputDir);
    if (options.fallbackWhileStarting && channel.state !== "live") {
      starting.catch(() => {});
      return fallback(file, args, runOptions);
    }
    if (!(await starting)) return fallback(file, args, runOptions);
    if (!channel.writes(outputDir) || channel.state !== "live" || runOptions.signal?.aborted) {
      return fallback(file, args, runOptions);
    }
    return runInSession(entry.command, runOptions, { fd: output.fd, path: outputPath }, startedAt);
  };

  return {
    remember(wrapped, command) {
      const entry = remembered.get(wrapped);
      if (entry) entry.uses++;
      else remembered.set(wrapped, { command, uses: 1 });
    },
    run,
    forgetAll: () => remembered.clear(),
    get fellBack() {
      return fellBack;
    },
  };
}

/** The result of a command the server saw finish, a signal reported as `signals` says. */
function finishedResult(
  reply: ServerReply,
  base: Omit<ProcessResult, "exitCode" | "failed" | "shortMessage" | "signal">,
  timeoutMs: number | undefined,
  signals: "as-bwrap" | "as-runProcess",
): ProcessResult {
  const signalNumber =
    typeof reply.signal === "string" ? osConstants.signals[reply.signal as NodeJS.Signals] : undefined;
  if (base.timedOut || base.canceled) {
    return {
      ...base,
      exitCode: undefined,
      signal: reply.signal ?? "SIGTERM",
      failed: true,
      shortMessage: base.timedOut
        ? `Command timed out after ${timeoutMs} ms: bash -c …`
        : "Command was canceled: bash -c …",
    };
  }
  if (signals === "as-runProcess" && typeof reply.code !== "number" && typeof reply.signal === "string") {
    return {
      ...base,
      exitCode: undefined,
      signal: reply.signal,
      failed: true,
      shortMessage: `Command was killed with ${reply.signal}: bash -c …`,
    };
  }
  const exitCode =
    typeof reply.code === "number" ? reply.code : signalNumber !== undefined ? 128 + signalNumber : undefined;
  return {
    ...base,
    exitCode,
    failed: exitCode !== 0,
    shortMessage: exitCode === 0 ? "" : `Command failed with exit code ${exitCode}: bash -c …`,
  };
}
