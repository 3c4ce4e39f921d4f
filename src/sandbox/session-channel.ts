/**
 * The process half of a sandbox session: one bubblewrap running the exec server (exec-server.ts),
 * started on first use, and the framed request/reply channel over its pipes. Each request has an
 * id; replies with that id go to its `Pending` until it is forgotten; when the server cannot start
 * or dies, every pending request hears `onDown` and the channel stays down.
 *
 * A run without a sandbox runs the same server as a plain child process (`place.unsandboxed`), for
 * the bash tool's commands only: forking a command from the runner costs what the runner's size
 * costs (page tables copied on the runner's thread, ~8 ms a command on a guest whose page tables
 * are costly); forking it from the small server costs a fraction of that, off the runner's thread.
 *
 * While a request is pending the channel keeps the event loop alive; idle, it never does.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import type { Socket } from "node:net";
import { errorText } from "../core/errors.ts";
import { signalGroup } from "../system/process.ts";
import { bubblewrapCommand, type SandboxPolicy, visibleInSandbox } from "./bubblewrap.ts";
import { EXEC_SERVER_SOURCE, MAX_FRAME_DATA_BYTES } from "./exec-server.ts";
import { createFrameReader, encodeFrame } from "./frames.ts";
import { launch } from "./process-cap.ts";

/** Milliseconds the session may take to say it is ready: 10000. */
export const SESSION_START_TIMEOUT_MS = 10_000;

/** A reply header of the exec server (see exec-server.ts). */
export interface ServerReply {
  id?: number;
  event?: string;
  pid?: number;
  code?: number | string | null;
  signal?: string | null;
  error?: string;
  ok?: boolean;
  result?: unknown;
  message?: string;
  quiet?: boolean;
}

export interface Pending {
  onReply(reply: ServerReply, data: Buffer): void;
  onDown(reason: string): void;
  /** Where the payload of a reply of `length` bytes goes (see createFrameReader); default: a new buffer. */
  destination?(reply: ServerReply, length: number): Buffer | undefined;
}

/**
 * Where the server runs: in a bwrap of the run's policy (without the environment), or, for a run
 * without a sandbox, as a plain child process in the `unsandboxed` folder, started through
 * `launcher` when there is one (the run's process cap: process-cap.ts).
 */
export type ServerPlace =
  | { policy: Omit<SandboxPolicy, "env"> }
  | { unsandboxed: string; launcher?: readonly string[] };

export interface ChannelOptions {
  place: ServerPlace;
  /** The exec server's own environment (the commands get theirs with each request). */
  serverEnv: Record<string, string>;
  /** Called once when the server cannot start or dies. */
  onDown: (reason: string) => void;
  /** The Node binary of the exec server. Default: process.execPath. */
  nodePath?: string;
  /** Default: SESSION_START_TIMEOUT_MS. */
  startTimeoutMs?: number;
}

export interface SessionChannel {
  /** "idle" before the first start, "live", or "down" (could not start, died or disposed). */
  readonly state: "idle" | "live" | "down";
  /** The server's process id from its spawn until it has exited; undefined otherwise. */
  readonly pid: number | undefined;
  /**
   * Whether the server can write files in `dir`: the folder bound read-write when it started in a
   * bwrap; any folder when it runs unsandboxed.
   */
  writes(dir: string): boolean;
  /** Starts the server once, binding `writable` read-write (created if missing); resolves whether it is live. */
  start(writable: string | undefined): Promise<boolean>;
  /** Sends a request under a fresh id; replies go to `pending` until `forget`. Returns the id. */
  send(header: Record<string, unknown>, pending: Pending, data?: Uint8Array): number;
  /** Sends a message about an earlier request (e.g. kill), expecting no reply of its own. */
  notify(header: Record<string, unknown>): void;
  forget(id: number): void;
  /**
   * Closes the server's stdin, then kills bwrap if it is still there after 2 s; a server nothing
   * was sent to is killed at once, with its process group. Resolves once it has exited.
   */
  dispose(): Promise<void>;
}

/** Its pipes are sockets (so they can be unref'd). */
type ServerProcess = ChildProcessByStdio<Socket, Socket, Socket>;

export function createSessionChannel(options: ChannelOptions): SessionChannel {
  const pending = new Map<number, Pending>();
  let state: "idle" | "live" | "down" = "idle";
  let child: ServerProcess | undefined;
  let boundDir: string | undefined;
  let starting: Promise<boolean> | undefined;
  let nextId = 1;
  let stderrTail = "";
  /** Something was sent to the server. */
  let used = false;

  const goDown = (reason: string) => {
    if (state === "down") return;
    state = "down";
    options.onDown(reason);
    for (const entry of pending.values()) entry.onDown(reason);
    pending.clear();
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };

  const holdLoop = () => {
    if (!child) return;
    if (pending.size > 0) child.stdout.ref();
    else child.stdout.unref();
  };

  /** Whether the server's stdin is corked until the current tick ends. */
  let corked = false;
  const write = (header: Record<string, unknown>, data?: Uint8Array) => {
    if (!child || state === "down") return;
    // Corked until the tick ends: a large message's parts, and the requests sent together (an
    // edit's lookup and open), go out in one writev and wake the server once.
    if (!corked) {
      corked = true;
      const stdin = child.stdin;
      stdin.cork();
      process.nextTick(() => {
        corked = false;
        stdin.uncork();
      });
    }
    for (const part of encodeFrame(header, data)) child.stdin.write(part);
  };

  const start = (writable: string | undefined): Promise<boolean> => {
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
        if (writable) mkdirSync(writable, { recursive: true });
        const { file, args, cwd } = serverCommand(options.place, options, writable);
        const server = spawn(file, args, {
          cwd,
          env: options.serverEnv,
          stdio: ["pipe", "pipe", "pipe"],
          detached: true,
        }) as unknown as ServerProcess;
        child = server;
        boundDir = writable;
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
          const ended = "policy" in options.place ? "bwrap exited" : "the server exited";
          const why = stderrTail.trim() || `${ended} (${signal ?? `code ${code}`})`;
          settle(false, why);
          goDown(`it ended: ${why}`);
        });
        const read = createFrameReader(
          (header, data) => {
            const reply = header as ServerReply;
            if (reply.event === "ready" && reply.id === undefined) {
              if (state === "idle") state = "live";
              settle(true);
            } else if (typeof reply.id === "number") {
              pending.get(reply.id)?.onReply(reply, data);
            }
          },
          { maxHeaderBytes: 16 * 1024 * 1024, maxDataBytes: MAX_FRAME_DATA_BYTES },
          (header, length) => {
            const reply = header as ServerReply;
            return typeof reply.id === "number"
              ? pending.get(reply.id)?.destination?.(reply, length)
              : undefined;
          },
        );
        server.stdout.on("data", (chunk: Buffer) => {
          try {
            read(chunk);
          } catch (error) {
            goDown(`its answer could not be read (${errorText(error)})`);
          }
        });
        server.stdout.unref();
      } catch (error) {
        settle(false, errorText(error));
      }
    });
    return starting;
  };

  return {
    get state() {
      return state;
    },
    get pid() {
      return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    writes: (dir) => !("policy" in options.place) || dir === boundDir,
    start,
    send(header, entry, data) {
      used = true;
      const id = nextId++;
      pending.set(id, entry);
      holdLoop();
      if (state === "down") {
        pending.delete(id);
        holdLoop();
        entry.onDown("the session is down");
        return id;
      }
      write({ ...header, id }, data);
      return id;
    },
    notify: (header) => write(header),
    forget(id) {
      pending.delete(id);
      holdLoop();
    },
    async dispose() {
      const server = child;
      if (state !== "down") state = "down";
      for (const entry of pending.values()) entry.onDown("the session was disposed");
      pending.clear();
      if (!server || server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
      if (used) {
        server.stdin.end();
      } else {
        // Nothing was ever sent to it (the run started it while the model thought, then needed it
        // not): nothing of the model's ran in it, so it is killed with its group (a launcher,
        // bwrap) rather than waited for to start and then to read the end of its stdin.
        if (server.pid === undefined || !signalGroup(server.pid, "SIGKILL")) server.kill("SIGKILL");
      }
      const timer = setTimeout(() => server.kill("SIGKILL"), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The server's command line and folder for `place`. */
function serverCommand(
  place: ServerPlace,
  options: Pick<ChannelOptions, "nodePath" | "serverEnv">,
  writable: string | undefined,
): { file: string; args: string[]; cwd: string } {
  const nodePath = options.nodePath ?? process.execPath;
  if (!("policy" in place))
    return { ...launch(place.launcher, nodePath, ["-e", EXEC_SERVER_SOURCE]), cwd: place.unsandboxed };
  const policy: SandboxPolicy = {
    ...place.policy,
    // The server's Node binary, when it lies under a folder the sandbox hides (nvm under $HOME).
    reveal: [...(place.policy.reveal ?? []), ...(visibleInSandbox(place.policy, nodePath) ? [] : [nodePath])],
    writable: writable ? [writable] : [],
    env: options.serverEnv,
  };
  // Through the policy's launcher, which puts it under the run's process cap first.
  const bwrap = bubblewrapCommand(policy, [nodePath, "-e", EXEC_SERVER_SOURCE], place.policy.workspace);
  return { ...bwrap, cwd: place.policy.workspace };
}
