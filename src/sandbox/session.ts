/**
 * One bubblewrap per run for the bash tool: a sandbox session. Setting up bwrap's namespaces and
 * mounts costs several milliseconds per command; the session pays it once, on the first command,
 * and then runs each command through the exec server inside it (exec-server.ts), under the same
 * policy as the per-call sandbox (mounts, namespaces, environment allowlist, `--die-with-parent`,
 * `--new-session`), plus `<outDir>/tool-output` bound read-write so the server can reopen each
 * command's output file by path.
 *
 * What differs from a sandbox per call: commands of one run share the session's PID namespace and
 * its tmpfs mounts, so `/tmp` (and `$HOME`) persist between the calls of a run, and a process that
 * left its command's process group (`setsid`) lives until the run ends, when `dispose` ends the
 * session and the PID namespace takes it along.
 *
 * `run` has `runProcess`'s contract (never rejects; timeout → `timedOut`, abort → `canceled`; the
 * command's group is killed, SIGTERM then SIGKILL after the grace). It only takes over a call that
 * the sandbox's `prepare` wrapped and `remember`ed (a `bash -c` script with an output file in the
 * bound folder); anything else, and every call once the session could not start or died, runs as
 * given: the per-call bwrap command that `prepare` returned. It never runs a command unsandboxed.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { fchmodSync, mkdirSync } from "node:fs";
import type { Socket } from "node:net";
import { constants as osConstants } from "node:os";
import path from "node:path";
import type { ProcessResult, RunProcessOptions, runProcess } from "../system/process.ts";
import { bubblewrapArgs, isInside, type SandboxPolicy } from "./bubblewrap.ts";
import { EXEC_SERVER_SOURCE } from "./exec-server.ts";

/** Milliseconds the session may take to say it is ready: 10000. */
export const SESSION_START_TIMEOUT_MS = 10_000;
const DEFAULT_GRACE_MS = 2000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A command as the bash tool would run it without the sandbox. */
export interface SessionCommand {
  script: string;
  cwd: string;
  env: Record<string, string>;
}

export interface SandboxSessionOptions {
  /** The run's policy, without the environment. */
  policy: Omit<SandboxPolicy, "env">;
  /** The exec server's own environment (the commands get theirs with each request). */
  serverEnv: Record<string, string>;
  /** Runs a call the session does not take (the per-call bwrap). Default: runProcess. */
  fallback: typeof runProcess;
  /** Called once when the session cannot start or dies; later calls use `fallback`. */
  onDown: (reason: string) => void;
  /** The Node binary of the exec server. Default: process.execPath. */
  nodePath?: string;
  /** Default: SESSION_START_TIMEOUT_MS. */
  startTimeoutMs?: number;
}

export interface SandboxSession {
  /** Remembers that `wrapped` (a per-call bwrap script) is `command`, so `run` can take it over. */
  remember(wrapped: string, command: SessionCommand): void;
  /** `runProcess` through the session (see the module comment). */
  run: typeof runProcess;
  /** "idle" before the first command, "live", or "down" (could not start, died or disposed). */
  readonly state: "idle" | "live" | "down";
  /** Ends the session: the server's stdin closes, then bwrap is killed if still there. */
  dispose(): Promise<void>;
}

interface Reply {
  id?: number;
  event?: string;
  pid?: number;
  code?: number | null;
  signal?: string | null;
  error?: string;
}

interface Pending {
  onReply(reply: Reply): void;
  onDown(reason: string): void;
}

/** Its pipes are sockets (so they can be unref'd). */
type ServerProcess = ChildProcessByStdio<Socket, Socket, Socket>;

export function createSandboxSession(options: SandboxSessionOptions): SandboxSession {
  const remembered = new Map<string, { command: SessionCommand; uses: number }>();
  const pending = new Map<number, Pending>();
  let state: "idle" | "live" | "down" = "idle";
  let child: ServerProcess | undefined;
  let boundDir: string | undefined;
  let starting: Promise<boolean> | undefined;
  let nextId = 1;
  let stderrTail = "";

  const goDown = (reason: string) => {
    if (state === "down") return;
    state = "down";
    options.onDown(reason);
    for (const entry of pending.values()) entry.onDown(reason);
    pending.clear();
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };

  const holdLoop = () => {
    // While a command runs the session keeps the event loop alive; idle, it never does.
    if (!child) return;
    if (pending.size > 0) child.stdout.ref();
    else child.stdout.unref();
  };

  const start = (outputDir: string): Promise<boolean> => {
    starting ??= new Promise<boolean>((resolve) => {
      let settled = false;
      const settle = (ok: boolean, reason?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!ok) goDown(reason ?? "it did not start");
        resolve(ok);
      };
      const timer = setTimeout(
        () => settle(false, "it did not say it was ready in time"),
        options.startTimeoutMs ?? SESSION_START_TIMEOUT_MS,
      );
      try {
        mkdirSync(outputDir, { recursive: true });
        const nodePath = options.nodePath ?? process.execPath;
        const hidden = [options.policy.home, "/tmp", ...options.policy.hide];
        if (!options.policy.network) hidden.push("/run");
        const policy: SandboxPolicy = {
          ...options.policy,
          // The server's Node binary, when it lies under a folder the sandbox hides (nvm under $HOME).
          reveal: [
            ...(options.policy.reveal ?? []),
            ...(hidden.some((dir) => isInside(nodePath, dir)) ? [nodePath] : []),
          ],
          writable: [outputDir],
          env: options.serverEnv,
        };
        const args = bubblewrapArgs(policy, [nodePath, "-e", EXEC_SERVER_SOURCE], options.policy.workspace);
        const server = spawn(options.policy.bwrapPath, args, {
          cwd: options.policy.workspace,
          env: options.serverEnv,
          stdio: ["pipe", "pipe", "pipe"],
          detached: true,
        }) as unknown as ServerProcess;
        child = server;
        boundDir = outputDir;
        server.unref();
        server.stdin.unref();
        server.stderr.unref();
        server.stdin.on("error", () => {});
        server.stderr.setEncoding("utf8");
        server.stderr.on("data", (chunk: string) => {
          stderrTail = (stderrTail + chunk).slice(-500);
        });
        server.once("error", (error) => settle(false, error.message));
        server.once("exit", (code, signal) => {
          const why = stderrTail.trim() || `bwrap exited (${signal ?? `code ${code}`})`;
          settle(false, why);
          goDown(`it ended: ${why}`);
        });
        let buffered = "";
        server.stdout.setEncoding("utf8");
        server.stdout.on("data", (chunk: string) => {
          buffered += chunk;
          for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
            const line = buffered.slice(0, end);
            buffered = buffered.slice(end + 1);
            let reply: Reply;
            try {
              reply = JSON.parse(line) as Reply;
            } catch {
              continue;
            }
            if (reply.event === "ready" && reply.id === undefined) {
              if (state === "idle") state = "live";
              settle(true);
            } else if (typeof reply.id === "number") {
              pending.get(reply.id)?.onReply(reply);
            }
          }
        });
        server.stdout.unref();
      } catch (error) {
        settle(false, error instanceof Error ? error.message : String(error));
      }
    });
    return starting;
  };

  const send = (message: Record<string, unknown>) => {
    child?.stdin.write(`${JSON.stringify(message)}\n`);
  };

  const runInSession = async (
    command: SessionCommand,
    options_: RunProcessOptions,
    output: { fd: number; path: string },
    startedAt: number,
  ): Promise<ProcessResult> => {
    const grace = options_.killGraceMs ?? DEFAULT_GRACE_MS;
    const id = nextId++;
    let timedOut = false;
    let canceled = false;
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      send({ op: "kill", id, graceMs: grace });
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
      const finish = (result: ProcessResult) => {
        if (timeout) clearTimeout(timeout);
        options_.signal?.removeEventListener("abort", onAbort);
        pending.delete(id);
        holdLoop();
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
      pending.set(id, {
        onReply(reply) {
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
          finish(finishedResult(reply, base(), options_.timeoutMs));
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
      });
      holdLoop();
      if (options_.timeoutMs !== undefined && options_.timeoutMs > 0 && options_.timeoutMs <= MAX_TIMER_MS) {
        timeout = setTimeout(() => {
          timedOut = true;
          kill();
        }, options_.timeoutMs);
      }
      options_.signal?.addEventListener("abort", onAbort, { once: true });
      send({
        op: "start",
        id,
        script: command.script,
        cwd: command.cwd,
        env: command.env,
        output: output.path,
        graceMs: grace,
      });
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
    if (!entry || output?.path === undefined || state === "down")
      return options.fallback(file, args, runOptions);
    const outputPath = output.path;
    if (runOptions.signal?.aborted) return options.fallback(file, args, runOptions);
    if (!(await start(path.dirname(outputPath)))) return options.fallback(file, args, runOptions);
    if (boundDir !== path.dirname(outputPath) || state !== "live" || runOptions.signal?.aborted) {
      return options.fallback(file, args, runOptions);
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
    get state() {
      return state;
    },
    async dispose() {
      const server = child;
      if (state !== "down") state = "down";
      remembered.clear();
      if (!server || server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
      server.stdin.end();
      const timer = setTimeout(() => server.kill("SIGKILL"), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The result of a command the server saw finish: a signal is reported as bwrap reports it, 128+n. */
function finishedResult(
  reply: Reply,
  base: Omit<ProcessResult, "exitCode" | "failed" | "shortMessage" | "signal">,
  timeoutMs: number | undefined,
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
  const exitCode =
    typeof reply.code === "number" ? reply.code : signalNumber !== undefined ? 128 + signalNumber : undefined;
  return {
    ...base,
    exitCode,
    failed: exitCode !== 0,
    shortMessage: exitCode === 0 ? "" : `Command failed with exit code ${exitCode}: bash -c …`,
  };
}
