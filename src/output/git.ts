/**
 * Runs git for the workspace snapshot, isolated from the user's configuration: no system or global
 * config, no user excludes file, no inherited `GIT_*` variables, a fixed identity and locale, so the
 * patch does not depend on who runs it or where.
 */
import { runProcess } from "../system/process.ts";

/** Bytes of git stdout/stderr kept in memory. Patches are streamed to a file, so this bounds only listings. */
export const GIT_MAX_BUFFER = 256 * 1024 * 1024;

export interface GitOptions {
  cwd: string;
  /** Variables added on top of the isolated environment (e.g. GIT_DIR, GIT_INDEX_FILE). */
  env?: Record<string, string>;
  input?: string;
}

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

/** The environment every git call gets: the parent's, minus anything starting with `GIT_`, plus isolation. */
export function isolatedGitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("GIT_")) env[key] = value;
  }
  return {
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

/** Runs `git <args>` isolated from user config. Never rejects: check `failed`. */
export async function git(args: string[], options: GitOptions): Promise<GitResult> {
  const configArgs = ISOLATING_CONFIG.flatMap((entry) => ["-c", entry]);
  const result = await runProcess("git", [...configArgs, ...args], {
    cwd: options.cwd,
    env: isolatedGitEnv(options.env),
    extendEnv: false,
    maxBuffer: GIT_MAX_BUFFER,
    ...(options.input !== undefined && { input: options.input }),
  });
  return {
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    failed: result.failed,
    shortMessage: result.shortMessage,
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
