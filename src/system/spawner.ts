/**
 * Starts the runner's own short commands (git, the bubblewrap probe) from a small `sh` that lives
 * as long as the runner, instead of from the runner's process. Node forks its whole process for
 * every child and waits until the child has called `exec`: the copy of its page tables and the
 * child's teardown of them block the runner's thread, 6-9 ms a command on a virtual machine whose
 * page tables are costly (a PVM guest: `spawn` of `git --version` 11 ms from Node, 6.5 ms from
 * dash, whose fork copies a few hundred KB), ~2 ms through the spawner. A snapshot is six git
 * commands, the end of a changing run four, each checkpoint four.
 *
 * How: each command is written as a few lines of sh into a file of the spawner's folder (its
 * arguments single-quoted, its environment set as differences from the spawner's own), and the
 * file's number is sent on the spawner's stdin. A subshell runs it in the background, its stdout
 * and stderr into files, and says `p N PID` when it started it and `d N STATUS` when it ended.
 * Killing a command is killing that PID. The spawner and its commands are in a process group of
 * their own (so Ctrl-C to the terminal's group reaches none of them, as with git's own group
 * before); the reaper kills that group if the runner dies, and the spawner kills it itself when
 * its stdin ends.
 *
 * Best effort: where it cannot start (no `sh`), or once it has died, `spawnThrough` answers
 * undefined and the caller spawns as before.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import path from "node:path";
import { watchGroup } from "./reaper.ts";
import { makeRunTempDir } from "./run-temp.ts";
import { executablePath } from "./which.ts";

// Reads a request number a line; runs the request's file in a background subshell, which reports
// on stdout (lines of under PIPE_BUF bytes: written whole, whoever writes at the same time). At EOF
// (the runner is gone or done), kills its own process group: itself and every command still running.
const SPAWNER_SCRIPT = `
dir="$1"
while IFS= read -r n; do
  case "$n" in ""|*[!0-9]*) continue ;; esac
  ( . "$dir/$n.sh" ) &
done
kill -KILL 0
`;

/** A command for the spawner: an absolute file, its arguments, folder and whole environment. */
export interface SpawnRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** Written to the command's stdin; /dev/null when undefined. */
  input?: string | Uint8Array;
  /** Past this many bytes of stdout and stderr together, neither is read (`tooLarge`). */
  maxBytes: number;
}

/** How a command of the spawner ended, with what it printed. */
export interface SpawnedResult {
  /** Exit status; undefined when a signal ended it (`signal` says which, if known). */
  exitCode: number | undefined;
  signal: NodeJS.Signals | undefined;
  stdout: Buffer;
  stderr: Buffer;
  /** It printed more than `maxBytes`: `stdout` and `stderr` are empty. */
  tooLarge: boolean;
  /**
   * The spawner died before the command's end was known (killed from outside): whether it ran, and
   * how far, is unknown. The caller may run it again itself.
   */
  lost: boolean;
}

/** A command the spawner runs. */
export interface SpawnedCommand {
  done: Promise<SpawnedResult>;
  /** SIGKILLs the command (once it has started); its `done` then resolves with `signal`. */
  kill(): void;
}

interface Pending {
  resolve: (result: SpawnedResult) => void;
  maxBytes: number;
  pid?: number;
  killed: boolean;
}

interface Spawner {
  child: ChildProcess;
  dir: string;
  env: Record<string, string>;
  pending: Map<number, Pending>;
  alive: boolean;
}

let current: Promise<Spawner | undefined> | undefined;
let counter = 0;

/**
 * Runs `request` through the spawner, or answers undefined when there is none (it could not start,
 * or died): then the caller spawns the command itself. `request.file` must be absolute (the
 * spawner's shell would search its PATH, which may name a folder of the workspace).
 */
export async function spawnThrough(request: SpawnRequest): Promise<SpawnedCommand | undefined> {
  if (!path.isAbsolute(request.file)) return undefined;
  current ??= startSpawner();
  const spawner = await current;
  if (!spawner?.alive) return undefined;
  const id = ++counter;
  const base = path.join(spawner.dir, String(id));
  const input = request.input === undefined ? "/dev/null" : `${base}.in`;
  const script = commandScript(id, request, spawner.env, input, base);
  if (script === undefined) return undefined;
  try {
    if (request.input !== undefined) writeFileSync(`${base}.in`, request.input);
    writeFileSync(`${base}.sh`, script);
  } catch {
    return undefined;
  }
  let resolve: Pending["resolve"] = () => {};
  const done = new Promise<SpawnedResult>((r) => {
    resolve = r;
  });
  const entry: Pending = { resolve, maxBytes: request.maxBytes, killed: false };
  spawner.pending.set(id, entry);
  // While a command runs, the runner waits for its answer: the pipe holds the process open.
  (spawner.child.stdout as Socket | null)?.ref();
  spawner.child.stdin?.write(`${id}\n`);
  return {
    done,
    kill() {
      entry.killed = true;
      if (entry.pid !== undefined) killQuietly(entry.pid);
    },
  };
}

async function startSpawner(): Promise<Spawner | undefined> {
  // The runner's environment, as sh can hold it: each command says how its own differs.
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && isName(key)) env[key] = value;
  }
  let dir: string;
  try {
    dir = await makeRunTempDir("spawner");
  } catch {
    return undefined;
  }
  let child: ChildProcess;
  try {
    child = spawn(executablePath("sh"), ["-c", SPAWNER_SCRIPT, "agent-run-spawner", dir], {
      detached: true,
      stdio: ["pipe", "pipe", "ignore"],
      env,
    });
  } catch {
    return undefined;
  }
  const spawner: Spawner = { child, dir, env, pending: new Map(), alive: true };
  const fail = () => {
    if (!spawner.alive) return;
    spawner.alive = false;
    for (const [id, entry] of spawner.pending) finish(spawner, id, entry, undefined);
  };
  child.on("error", fail);
  child.on("exit", fail);
  child.stdin?.on("error", fail);
  if (child.pid !== undefined) watchGroup(child.pid);
  let buffered = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      onLine(spawner, buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
    }
  });
  // Never what keeps the runner alive: a run that has ended ends its process.
  child.unref();
  (child.stdin as Socket | null)?.unref();
  (child.stdout as Socket | null)?.unref();
  return spawner;
}

function onLine(spawner: Spawner, line: string): void {
  const [kind, idText, value] = line.split(" ");
  const id = Number(idText);
  const entry = spawner.pending.get(id);
  if (!entry) return;
  if (kind === "p") {
    entry.pid = Number(value);
    if (entry.killed) killQuietly(entry.pid);
  } else if (kind === "d") {
    finish(spawner, id, entry, Number(value));
  }
}

/** Settles a request from its status (undefined: the spawner died first) and removes its files. */
function finish(spawner: Spawner, id: number, entry: Pending, status: number | undefined): void {
  spawner.pending.delete(id);
  if (spawner.pending.size === 0) (spawner.child.stdout as Socket | null)?.unref();
  const base = path.join(spawner.dir, String(id));
  const size = (file: string) => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  const read = (file: string) => {
    try {
      return readFileSync(file);
    } catch {
      return Buffer.alloc(0);
    }
  };
  const tooLarge = size(`${base}.out`) + size(`${base}.err`) > entry.maxBytes;
  const empty = Buffer.alloc(0);
  const stdout = tooLarge || status === undefined ? empty : read(`${base}.out`);
  const stderr = tooLarge || status === undefined ? empty : read(`${base}.err`);
  for (const suffix of [".sh", ".in", ".out", ".err"]) rmSync(`${base}${suffix}`, { force: true });
  // sh reports a command ended by signal N as 128 + N; a kill of ours is SIGKILL.
  const bySignal = status !== undefined && status > 128 && (entry.killed || status === 137);
  entry.resolve({
    exitCode: bySignal ? undefined : status,
    signal: bySignal ? "SIGKILL" : undefined,
    stdout,
    stderr,
    tooLarge,
    lost: status === undefined,
  });
}

/**
 * The sh of one request: its environment as the differences from the spawner's (unset, then
 * assigned on the command), its folder, its redirections; it reports its PID and its status.
 * Undefined when sh cannot say that environment (a variable whose name is not a shell name).
 */
function commandScript(
  id: number,
  request: SpawnRequest,
  spawnerEnv: Readonly<Record<string, string>>,
  input: string,
  base: string,
): string | undefined {
  const unset = Object.keys(spawnerEnv).filter((key) => !(key in request.env));
  const changed = Object.entries(request.env).filter(([key, value]) => spawnerEnv[key] !== value);
  if (!unset.every(isName) || !changed.every(([key]) => isName(key))) return undefined;
  const assign = changed.map(([key, value]) => `${key}=${shellWord(value)}`);
  const command = [...assign, shellWord(request.file), ...request.args.map(shellWord)].join(" ");
  return [
    ...(unset.length > 0 ? [`unset ${unset.join(" ")}`] : []),
    `cd ${shellWord(request.cwd)} || { echo "d ${id} 126"; exit; }`,
    `${command} <${shellWord(input)} >${shellWord(`${base}.out`)} 2>${shellWord(`${base}.err`)} &`,
    `echo "p ${id} $!"`,
    `wait $!`,
    `echo "d ${id} $?"`,
    "",
  ].join("\n");
}

/** Single-quotes a word for sh. */
function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Whether `key` can be a shell variable's name (others cannot be set or unset by sh). */
function isName(key: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key);
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}
