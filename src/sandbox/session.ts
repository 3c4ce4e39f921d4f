/**
 * One bubblewrap per run for the agent's tools: a sandbox session. Setting up bwrap's namespaces
 * and mounts costs several milliseconds per command; the session pays it once, on first use, and
 * then runs each bash command and does every file tool's work through the exec server inside it
 * (exec-server.ts), under the same policy as the per-call sandbox (mounts, namespaces, environment
 * allowlist, `--die-with-parent`, `--new-session`), plus `toolOutputDir` (the bash tool's
 * `<outDir>/tool-output`) bound read-write so the server can reopen each command's output file.
 *
 * What differs from a sandbox per call: commands of one run share the session's PID namespace and
 * its tmpfs mounts, so `/tmp` (and `$HOME`) persist between the calls of a run, and a process that
 * left its command's process group (`setsid`) lives until the run ends, when `dispose` ends the
 * session and the PID namespace takes it along.
 *
 * If the session cannot start or dies: bash commands run in a bwrap of their own each
 * (session-commands.ts); file operations go to a spare session started for them (the model's
 * commands never run in it, so they cannot end it), and fail if that cannot start either. Neither
 * ever runs unsandboxed.
 */
import type { runProcess } from "../system/process.ts";
import type { FileOperations } from "../tools/operations.ts";
import type { SandboxPolicy } from "./bubblewrap.ts";
import { createSessionChannel, type ServerReply, type SessionChannel } from "./session-channel.ts";
import { createSessionCommands, type SessionCommand } from "./session-commands.ts";
import { createSessionFileOperations, type SessionRequest } from "./session-files.ts";

export { SESSION_START_TIMEOUT_MS } from "./session-channel.ts";
export type { SessionCommand } from "./session-commands.ts";

export interface SandboxSessionOptions {
  /** The run's policy, without the environment. */
  policy: Omit<SandboxPolicy, "env">;
  /** The exec server's own environment (the commands get theirs with each request). */
  serverEnv: Record<string, string>;
  /** Runs a call the session does not take (the per-call bwrap). */
  fallback: typeof runProcess;
  /** Called once when the session cannot start or dies; later calls use `fallback` (bash) or a spare session (files). */
  onDown: (reason: string) => void;
  /**
   * The folder bound read-write for the bash tool's output files (`<outDir>/tool-output`), created
   * when missing. Default: the folder of the first command's output file.
   */
  toolOutputDir?: string;
  /** The Node binary of the exec server. Default: process.execPath. */
  nodePath?: string;
  /** Default: SESSION_START_TIMEOUT_MS. */
  startTimeoutMs?: number;
}

export interface SandboxSession {
  /** Remembers that `wrapped` (a per-call bwrap script) is `command`, so `run` can take it over. */
  remember(wrapped: string, command: SessionCommand): void;
  /** `runProcess` through the session (see session-commands.ts). */
  run: typeof runProcess;
  /**
   * File operations below `root` (a folder the sandbox sees: the workspace, or any other for
   * tests), done by the exec server with the sandbox's mounts and /proc.
   */
  fileOperations(root: string): FileOperations;
  /**
   * Starts the server now, in the background, instead of on first use (the run calls it when the
   * model's first tool call starts streaming, so the start overlaps the rest of the reply). A
   * start that fails is the same as on first use: `onDown`, then the fallbacks.
   */
  prestart(): void;
  /**
   * Whether no process of the model's can be alive: the session is live, every command ran in it
   * (none in a bwrap of its own, whose processes it could not see), and its PID namespace holds
   * nothing but its server. Until the runner starts a command, none can appear. False when that
   * cannot be told within QUIET_TIMEOUT_MS.
   */
  quiet(): Promise<boolean>;
  /** "idle" before first use, "live", or "down" (could not start, died or disposed). */
  readonly state: "idle" | "live" | "down";
  /** Ends the session (and its spare): the server's stdin closes, then bwrap is killed if still there. */
  dispose(): Promise<void>;
}

/** How long the server may take to say whether it is alone before the answer is "no": 1 s. */
export const QUIET_TIMEOUT_MS = 1000;

function failure(message: string, code = "io"): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

export function createSandboxSession(options: SandboxSessionOptions): SandboxSession {
  let disposed = false;
  const channel = createSessionChannel({ ...options, place: { policy: options.policy } });
  const commands = createSessionCommands(channel, {
    fallback: options.fallback,
    toolOutputDir: options.toolOutputDir,
  });
  let spare: SessionChannel | undefined;

  /** The channel file work goes to: the session's, or a spare once it is down. */
  const fileChannel = async (): Promise<SessionChannel> => {
    if (disposed) throw failure("The sandbox session has ended.");
    if (channel.state !== "down" && (await channel.start(options.toolOutputDir))) return channel;
    if (!spare || spare.state === "down") {
      spare = createSessionChannel({ ...options, place: { policy: options.policy }, onDown: () => {} });
    }
    if (await spare.start(undefined)) return spare;
    throw failure("The sandbox could not start, so the file tools cannot work here.");
  };

  const request: SessionRequest = async (header, data, into) => {
    const target = await fileChannel();
    return new Promise((resolve, reject) => {
      const id = target.send(
        header,
        {
          ...(into && {
            destination: (reply: ServerReply, length: number) =>
              reply.ok === true ? into(length) : undefined,
          }),
          onReply(reply: ServerReply, payload: Buffer) {
            if (reply.event !== "fs") return;
            target.forget(id);
            if (reply.ok === true) resolve({ result: reply.result, data: payload });
            else reject(failure(String(reply.message), typeof reply.code === "string" ? reply.code : "io"));
          },
          onDown(reason) {
            reject(failure(`The sandbox session ended during the operation (${reason}).`));
          },
        },
        data,
      );
    });
  };

  return {
    remember: commands.remember,
    run: commands.run,
    fileOperations: (root) => createSessionFileOperations(request, root),
    prestart() {
      if (disposed || channel.state !== "idle") return;
      // The same folder as the first use would bind (set by the run: its tool-output folder).
      channel.start(options.toolOutputDir).catch(() => {});
    },
    quiet() {
      if (disposed || commands.fellBack || channel.state !== "live") return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          channel.forget(id);
          resolve(false);
        }, QUIET_TIMEOUT_MS);
        const id = channel.send(
          { op: "quiet" },
          {
            onReply(reply) {
              if (reply.event !== "quiet") return;
              clearTimeout(timer);
              channel.forget(id);
              resolve(reply.quiet === true);
            },
            onDown() {
              clearTimeout(timer);
              resolve(false);
            },
          },
        );
      });
    },
    get state() {
      return channel.state;
    },
    async dispose() {
      disposed = true;
      commands.forgetAll();
      await Promise.all([channel.dispose(), spare?.dispose()]);
    },
  };
}
