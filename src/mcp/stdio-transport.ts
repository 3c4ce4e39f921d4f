/**
 * The MCP stdio transport over a server process we own: the SDK's own transport cannot put the
 * server in a process group of its own, kill that group, or say how the server ended. Here the
 * server runs detached (its own group) with stdin and stdout as the JSON-RPC channel, one message a
 * line; the end of its stderr is kept for error messages (`lastStderrLine`); `close` ends it the
 * way the MCP spec asks (stdin closed, then SIGTERM, then SIGKILL), to the whole group, and kills
 * what the server left in its group even when the server itself has gone. Servers still running
 * when the runner's process exits are killed with it.
 *
 * Not `runProcess` (system/process.ts, over execa): that runs a command to its end; a server lives
 * for the run and is spoken to over its pipes while it runs, which node's `spawn` gives directly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { signalGroup } from "../system/process.ts";

/** Bytes of one message from a server at most: 32 MiB (a result is bounded later anyway). */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** Bytes of a server's stderr kept, its end: 8 KiB. */
const STDERR_TAIL_BYTES = 8 * 1024;
/** How long a server has to exit after its stdin closes, then after SIGTERM, in milliseconds. */
const CLOSE_GRACE_MS = 1000;
const TERM_GRACE_MS = 2000;

/** A server's program, as `runProcess` takes a command. */
export interface ServerCommand {
  file: string;
  args: string[];
  cwd: string;
  /** The server's whole environment (nothing is inherited). */
  env: Record<string, string>;
}

/** How a server process ended. */
export interface ServerExit {
  exitCode: number | null;
  signal: string | null;
}

const live = new Set<number>();
let exitHookInstalled = false;

function track(pid: number): void {
  live.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const group of live) signalGroup(group, "SIGKILL");
  });
}

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #command: ServerCommand;
  readonly #buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  #child: ChildProcess | undefined;
  #stderr = "";
  #exit: ServerExit | undefined;
  #closed: Promise<void> | undefined;
  #announcedClose = false;

  constructor(command: ServerCommand) {
    this.#command = command;
  }

  /** Starts the server; rejects when it cannot be spawned (no such program, not executable). */
  async start(): Promise<void> {
    const { file, args, cwd, env } = this.#command;
    const child = spawn(file, args, { cwd, env, stdio: "pipe", detached: true, windowsHide: true });
    this.#child = child;
    this.#closed = new Promise((resolve) => child.once("close", () => resolve()));
    child.once("exit", (code, signal) => {
      this.#exit = { exitCode: code, signal };
      if (child.pid !== undefined) {
        // What the server left in its group goes with it: it could hold the pipes open.
        signalGroup(child.pid, "SIGKILL");
        live.delete(child.pid);
      }
    });
    // Once its pipes are closed too, so the end of its stderr is there to tell.
    child.once("close", () => this.#announceClose());
    child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
    child.stdin?.on("error", (error: Error) => this.onerror?.(error));
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => {
        if (child.pid !== undefined) track(child.pid);
        resolve();
      });
      child.once("error", reject);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#exit || stdin.destroyed) throw new Error("the server is not running");
    await new Promise<void>((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Stops the server and everything in its process group; resolves once it is gone. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || child.pid === undefined) {
      this.#announceClose();
      return;
    }
    const pid = child.pid;
    if (!this.#exit) {
      child.stdin?.end();
      if (!(await this.#exited(CLOSE_GRACE_MS))) {
        signalGroup(pid, "SIGTERM");
        if (!(await this.#exited(TERM_GRACE_MS))) {
          signalGroup(pid, "SIGKILL");
          await this.#exited(TERM_GRACE_MS);
        }
      }
    }
    signalGroup(pid, "SIGKILL");
    live.delete(pid);
    this.#buffer.clear();
    this.#announceClose();
  }

  /** How the server ended; undefined while it runs. */
  get exit(): ServerExit | undefined {
    return this.#exit;
  }

  /** The process id of the server (or of the sandbox around it). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last non-empty line the server wrote to stderr, cut to 300 characters; "" if none. */
  lastStderrLine(): string {
    const lines = this.#stderr.split(/\r?\n/).map((line) => line.trim());
    const last = lines.filter((line) => line !== "").at(-1) ?? "";
    return last.length > 300 ? `${last.slice(0, 299)}…` : last;
  }

  #read(chunk: Buffer): void {
    try {
      this.#buffer.append(chunk);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC (a server logging to stdout): reported, the rest read on.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  async #exited(ms: number): Promise<boolean> {
    if (this.#exit || !this.#closed) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const done = await Promise.race([this.#closed.then(() => true as const), timeout]);
    clearTimeout(timer);
    return done;
  }

  #announceClose(): void {
    if (this.#announcedClose) return;
    this.#announcedClose = true;
    this.onclose?.();
  }
}
