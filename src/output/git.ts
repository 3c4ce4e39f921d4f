/**
 * Runs git for the workspace snapshot, isolated from the user's configuration: no system or global
 * config, no user excludes file, no inherited `GIT_*` variables, a fixed identity and locale, so the
 * patch does not depend on who runs it or where.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { type SpawnedCommand, spawnThrough } from "../system/spawner.ts";
import { executablePath } from "../system/which.ts";
import type { WorkspaceSnapshot } from "./snapshot.ts";

/** Bytes of git stdout/stderr kept in memory. Patches are streamed to a file, so this bounds only listings. */
export const GIT_MAX_BUFFER = 256 * 1024 * 1024;

export interface GitOptions {
  cwd: string;
  /** Variables added on top of the isolated environment (e.g. GIT_DIR, GIT_INDEX_FILE). */
  env?: Record<string, string>;
  input?: string | Uint8Array;
  /** Kill git after this many milliseconds (a fetch over a stalled network). Default: none. */
  timeoutMs?: number;
  /** Aborting kills git. */
  signal?: AbortSignal;
  /** Starts git through this (inside the run's sandbox) instead of as is. */
  wrap?: GitWrap;
  /**
   * Reads the user's own config (system, global, the repository's) instead of isolating from it:
   * for a question about how their git treats their files (`git config --get`, `check-attr`),
   * never for a command that writes. Hooks and fsmonitor stay off.
   */
  userConfig?: boolean;
}

/** A git command line as it would be spawned. */
export interface GitCommand {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * Rewrites a git command to run somewhere else (in a bwrap), keeping its arguments' meaning; may
 * first have to ask where (whether any process of the model's lives).
 */
export type GitWrap = (command: GitCommand) => GitCommand | Promise<GitCommand>;

export interface GitResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  failed: boolean;
  shortMessage: string;
}

/** Config applied to every call through `-c`; wins over the repository's own config. */
const ISOLATING_CONFIG = [
  // We only read the user's repository; CI checkouts are often owned by another user (and the
  // global config that would list them as safe is not read).
  "safe.directory=*",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.quotepath=false",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "core.excludesFile=/dev/null",
  "core.hooksPath=/dev/null",
  "color.ui=false",
  "diff.noprefix=false",
  "diff.mnemonicPrefix=false",

  "gc.auto=0",
  "maintenance.auto=false",
  "advice.addEmbeddedRepo=false",
  "user.name=agent-run",
  "user.email=agent-run@localhost",
];

/** Config applied to a `userConfig` call: only what keeps a read-only question from running anything. */
const QUERY_CONFIG = [
  "safe.directory=*",
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.quotepath=false",
];

/**
 * glibc's malloc hands the top of its heap back to the kernel whenever more than 128 KiB of it is
 * free, and git frees zlib's state (~270 KB) after every object it writes: each file of a `git add`
 * shrank the heap and grew it again, and every page of it was faulted in anew (a first add of
 * 10,000 files: 180,000 page faults and 6.4 s on a 2-core guest whose page faults are costly; 700
 * and 0.7 s when the heap keeps up to 256 MiB, which a git process lives too briefly to mind).
 * Ignored by other C libraries; a GLIBC_TUNABLES of the user's own is left as it is.
 */
const GIT_MALLOC_TUNABLES = "glibc.malloc.trim_threshold=268435456";

/** The environment every git call gets: the parent's, minus anything starting with `GIT_`, plus isolation. */
export function isolatedGitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("GIT_")) env[key] = value;
  }
  return {
    GLIBC_TUNABLES: GIT_MALLOC_TUNABLES,
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_AUTHOR_NAME: "agent-run",
    GIT_AUTHOR_EMAIL: "agent-run@localhost",
    GIT_COMMITTER_NAME: "agent-run",
    GIT_COMMITTER_EMAIL: "agent-run@localhost",
    LC_ALL: "C",
    ...extra,
  };
}

/**
 * Runs `git <args>` isolated from user config. Never rejects: check `failed`. Started by the
 * runner's spawner (system/spawner.ts: a fork of a small sh rather than of the runner, ~10 ms of
 * the runner's thread less per call where page tables are costly), else with node:child_process
 * directly; never through runProcess: a run makes about seven of these short calls, each ~2 ms of
 * CPU cheaper without execa's machinery, and git needs none of runProcess's process-group handling
 * (it starts nothing that outlives it).
 */
export async function git(args: string[], options: GitOptions): Promise<GitResult> {
  const configArgs = (options.userConfig ? QUERY_CONFIG : ISOLATING_CONFIG).flatMap((entry) => ["-c", entry]);
  const argv = [...configArgs, ...args];
  const command = `git ${args.join(" ")}`;
  let spawned: GitCommand;
  try {
    const env = isolatedGitEnv(options.env);
    if (options.userConfig) {
      delete env.GIT_CONFIG_NOSYSTEM;
      delete env.GIT_CONFIG_GLOBAL;
    }
    // Wrapped (in a bwrap), git is looked for inside, where the host's folders may not all be.
    const file = options.wrap ? "git" : executablePath("git", env);
    const plain = { file, args: argv, cwd: options.cwd, env };
    spawned = options.wrap ? await options.wrap(plain) : plain;
    // A wrapper may hand the command back as is (no process of the model's lives): still the git
    // of PATH's absolute folders then, never a `git` that a relative folder names in the workspace.
    if (!path.isAbsolute(spawned.file))
      spawned = { ...spawned, file: executablePath(spawned.file, spawned.env) };
  } catch (error) {
    return failedToStart(command, error);
  }
  if (options.signal?.aborted) return failedToStart(command, options.signal.reason);
  const through = await spawnThrough({
    file: spawned.file,
    args: spawned.args,
    cwd: spawned.cwd,
    env: spawned.env,
    maxBytes: GIT_MAX_BUFFER,
    ...(options.input !== undefined && { input: options.input }),
  }).catch(() => undefined);
  const result = through && (await gitThroughSpawner(command, through, options));
  // Without a spawner, or when it died under the command (which git may run again: the runner's
  // git commands are all safe to repeat), git is spawned from here.
  return result ?? gitSpawned(command, spawned, options);
}

/** A git that could not be started (or was stopped before it was). */
function failedToStart(command: string, error: unknown): GitResult {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const text = error instanceof Error ? error.message : String(error);
  return {
    exitCode: undefined,
    stdout: "",
    stderr: "",
    failed: true,
    shortMessage: `Command failed with ${code ?? text}: ${command}`,
  };
}

/** The result of a git run by the spawner; undefined when the spawner died under it. */
async function gitThroughSpawner(
  command: string,
  through: SpawnedCommand,
  options: GitOptions,
): Promise<GitResult | undefined> {
  let timedOut = false;
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          through.kill();
        }, options.timeoutMs);
  const onAbort = () => through.kill();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const result = await through.done;
    if (result.lost) return undefined;
    const { tooLarge, exitCode, signal } = result;
    const failed = tooLarge || timedOut || exitCode !== 0;
    return {
      exitCode,
      stdout: result.stdout.toString("utf8"),
      stderr: result.stderr.toString("utf8"),
      failed,
      shortMessage: failed ? whyFailed(command, { timedOut, tooLarge, signal, exitCode }, options) : "",
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** The one line saying why a git command failed, however it was started. */
function whyFailed(
  command: string,
  how: { timedOut: boolean; tooLarge: boolean; error?: Error; signal?: string; exitCode: number | undefined },
  options: Pick<GitOptions, "timeoutMs">,
): string {
  if (how.timedOut) return `Command timed out after ${options.timeoutMs} milliseconds: ${command}`;
  if (how.tooLarge) return `Command printed more than ${GIT_MAX_BUFFER} bytes: ${command}`;
  if (how.error) {
    return `Command failed with ${(how.error as NodeJS.ErrnoException).code ?? how.error.message}: ${command}`;
  }
  if (how.signal) return `Command was killed with ${how.signal}: ${command}`;
  return `Command failed with exit code ${how.exitCode}: ${command}`;
}

function gitSpawned(command: string, spawned: GitCommand, options: GitOptions): Promise<GitResult> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let tooLarge = false;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (exitCode: number | undefined, signal: string | null, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const failed = tooLarge || timedOut || error !== undefined || exitCode !== 0;
      resolve({
        exitCode,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        failed,
        shortMessage: failed
          ? whyFailed(command, { timedOut, tooLarge, error, signal: signal ?? undefined, exitCode }, options)
          : "",
      });
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(spawned.file, spawned.args, {
        cwd: spawned.cwd,
        env: spawned.env,
        stdio: [options.input !== undefined ? "pipe" : "ignore", "pipe", "pipe"],
        // In a process group of its own: Ctrl-C in a terminal signals the runner's whole group,
        // and a snapshot git killed by it lost the run its patch (exit 4). The runner stops git
        // itself (`signal`) when it must.
        detached: true,
        windowsHide: true,
        ...(options.signal !== undefined && { signal: options.signal, killSignal: "SIGKILL" as const }),
      });
    } catch (error) {
      finish(undefined, null, error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const keep = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > GIT_MAX_BUFFER) {
        if (!tooLarge) child.kill("SIGKILL");
        tooLarge = true;
        return;
      }
      into.push(chunk);
    };
    child.stdout?.on("data", keep(out));
    child.stderr?.on("data", keep(err));
    child.on("error", (error) => finish(undefined, null, error));
    child.on("close", (code, signal) => finish(code ?? undefined, signal));
    if (options.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, options.timeoutMs);
    }
    if (options.input !== undefined && child.stdin) {
      // git may exit before reading all of it (EPIPE): its exit code says what happened.
      child.stdin.on("error", () => {});
      child.stdin.end(options.input);
    }
  });
}

/**
 * Options for a git call on `snapshot` that reads the workspace's files (a directory walk, a path
 * hashed): through the snapshot's `confine` wrapper while it has one.
 */
export function readingWorkspace(snapshot: WorkspaceSnapshot): GitOptions {
  return {
    cwd: snapshot.workTree,
    env: snapshot.env,
    ...(snapshot.confine && { wrap: snapshot.confine }),
  };
}

/** Runs git and returns stdout, or throws an error naming the command and git's stderr. */
export async function gitOrThrow(args: string[], options: GitOptions): Promise<string> {
  const result = await git(args, options);
  if (result.failed) {
    const detail = result.stderr.trim() || result.shortMessage;
    throw new Error(`git ${args.join(" ")} failed in ${options.cwd}: ${detail}`);
  }
  return result.stdout;
}

/** A gitignore line matching exactly `fromWorkTree` (a `/`-separated path; a trailing `/` kept). */
export function anchoredPattern(fromWorkTree: string): string {
  return `/${fromWorkTree.replace(/[\\*?[\]!#]/g, "\\$&").replace(/ $/, "\\ ")}`;
}
