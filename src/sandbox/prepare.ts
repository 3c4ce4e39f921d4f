/**
 * Gathers the facts a sandbox policy needs for one run (which protected paths exist, the git
 * configs holding credentials, the runner's command files) and returns wrappers that put a bash
 * script or a command inside bubblewrap. Call `dispose` after the run: it removes the temp folder
 * of masks and the empty mount points it had to create.
 */
import { mkdir, readdir, realpath, rmdir, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { makeRunTempDir, removeRunTempDir } from "../system/run-temp.ts";
import {
  bubblewrapCommand,
  isInside,
  type SandboxPolicy,
  sandboxedScript,
  type TmpfsSizes,
} from "./bubblewrap.ts";
import { sandboxEnv } from "./env-allowlist.ts";
import { findGitCredentials } from "./git-credentials.ts";
import { findRunnerInstallDirs } from "./runner-install.ts";

/** Files the Actions runner reads back after a step: the agent must not write (or read) them. */
export const RUNNER_COMMAND_FILES = [
  "GITHUB_ENV",
  "GITHUB_PATH",
  "GITHUB_OUTPUT",
  "GITHUB_STEP_SUMMARY",
  "GITHUB_STATE",
] as const;

export interface PrepareSandboxOptions {
  bwrapPath: string;
  /** Absolute workspace root. */
  workspace: string;
  /** Protected globs relative to the workspace; literal paths and `dir/**` become read-only binds. */
  protectedGlobs: string[];
  /** Whether sandboxed commands may use the network. Default: false. */
  network?: boolean;
  /** Sizes of `/tmp`, `/dev/shm` and `$HOME` in bytes. Default: 1 GiB each (see bubblewrap.ts). */
  tmpfsBytes?: TmpfsSizes;
  /** The run's process-cap launcher every bwrap is started through (process-cap.ts). Default: none. */
  launcher?: string[];
  /** The runner's environment (for HOME and the command files). */
  env: Record<string, string | undefined>;
  /** The Node running the runner, whose ancestors may be an Actions runner's install. Default: this one. */
  execPath?: string;
  /** The runner's user id: as root (0), root's own secret files are masked. Default: this process's. */
  uid?: number;
}

/** A command as `runProcess` takes it. */
export interface WrappableCommand {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface PreparedSandbox {
  /** The policy without its environment (fixed per command). */
  policy: Omit<SandboxPolicy, "env">;
  /** Credential values found in git configs (already masked inside the sandbox). */
  gitSecrets: string[];
  /** The bash tool's script, rewritten to run inside the sandbox with an allowlisted `env`. */
  wrapScript(
    script: string,
    cwd: string,
    env: Record<string, string>,
    passThrough?: readonly string[],
  ): string;
  /** A command rewritten to run inside the sandbox, its environment allowlisted. */
  wrapCommand(command: WrappableCommand, passThrough?: readonly string[]): WrappableCommand;
  dispose(): Promise<void>;
}

/** Builds the run's sandbox. Rejects only when its temp folder cannot be written. */
export async function prepareSandbox(options: PrepareSandboxOptions): Promise<PreparedSandbox> {
  const { workspace, env } = options;
  // A run temp dir: removed by the reaper should the runner be killed outright, by a later run if
  // both were (the machine went down).
  const temp = await makeRunTempDir("sandbox");
  const created: string[] = [];
  const readOnly: string[] = [];
  for (const glob of options.protectedGlobs) {
    const literal = literalPrefix(glob);
    if (!literal) continue;
    const target = path.resolve(workspace, literal.path);
    if (!isInside(target, workspace) || target === workspace) continue;
    if (await exists(target)) readOnly.push(target);
    else if (literal.dir && path.basename(target) !== ".git") {
      // A protected folder that does not exist yet gets an empty mount point, so bash cannot
      // create it either; removed after the run when still empty.
      created.push(...(await mkdirTracked(target, workspace)));
      readOnly.push(target);
    }
  }

  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
  const masks: SandboxPolicy["masks"] = [];
  const gitSecrets: string[] = [];
  let n = 0;
  for (const config of await findGitCredentials(workspace, env)) {
    gitSecrets.push(...config.secrets);
    // A config in $HOME is hidden with it (an empty tmpfs): a mask would bring a copy back.
    if (config.secrets.length === 0 || isInside(config.file, home)) continue;
    const source = path.join(temp, `gitconfig-${n++}`);
    await writeFile(source, config.scrubbed, { mode: 0o444 });
    masks.push({ target: config.file, source });
  }
  const empty = path.join(temp, "empty");
  await writeFile(empty, "", { mode: 0o444 });
  for (const name of RUNNER_COMMAND_FILES) {
    const file = env[name];
    if (file && path.isAbsolute(file) && (await exists(file))) masks.push({ target: file, source: empty });
  }
  for (const file of await rootOnlySecrets(options.uid ?? process.getuid?.()))
    masks.push({ target: file, source: empty });

  const runnerTemp = env.RUNNER_TEMP && path.isAbsolute(env.RUNNER_TEMP) ? [env.RUNNER_TEMP] : [];
  const hide: string[] = [];
  for (const dir of runnerTemp) if (await exists(dir)) hide.push(dir);
  const runnerInstall = await findRunnerInstallDirs(env, options.execPath ?? process.execPath);
  hide.push(...runnerInstall);
  // The checkout stays readable when the workspace is a folder of it (its .git lies above).
  const checkout =
    env.GITHUB_WORKSPACE && path.isAbsolute(env.GITHUB_WORKSPACE) ? env.GITHUB_WORKSPACE : undefined;
  const keepCheckout =
    checkout !== undefined &&
    isInside(workspace, checkout) &&
    runnerInstall.some((dir) => isInside(checkout, dir)) &&
    (await exists(checkout));
  const sandboxHome = (await exists(home)) ? home : "/tmp";
  const policy: Omit<SandboxPolicy, "env"> = {
    bwrapPath: options.bwrapPath,
    workspace,
    readOnly,
    masks,
    hide,
    home: sandboxHome,
    reveal: [
      ...(await hiddenPathDirs(env.PATH, ["/tmp", sandboxHome, "/run", ...hide])),
      ...(keepCheckout ? [checkout] : []),
      ...(options.network ? await resolverDirs() : []),
    ],
    network: options.network ?? false,
    ...(options.tmpfsBytes && { tmpfsBytes: options.tmpfsBytes }),
    ...(options.launcher && { launcher: options.launcher }),
  };
  const full = (commandEnv: Record<string, string>, passThrough?: readonly string[]): SandboxPolicy => ({
    ...policy,
    env: sandboxEnv(commandEnv, { home: policy.home, ...(passThrough && { passThrough }) }),
  });

  return {
    policy,
    gitSecrets: [...new Set(gitSecrets)],
    wrapScript: (script, cwd, commandEnv, passThrough) =>
      sandboxedScript(full(commandEnv, passThrough), script, cwd),
    wrapCommand: (command, passThrough) => {
      const inner = full(command.env, passThrough);
      return {
        ...bubblewrapCommand(inner, [command.file, ...command.args], command.cwd),
        cwd: command.cwd,
        env: inner.env,
      };
    },
    dispose: async () => {
      // The mount points made in the workspace go now, before the patch; the masks in the temp
      // folder are the reaper's to remove while the run ends.
      for (const dir of created.reverse()) await rmdir(dir).catch(() => undefined);
      await removeRunTempDir(temp, { background: true });
    },
  };
}

/** The system's secrets only root may read: password hashes and the SSH host keys. */
const ROOT_ONLY_FILES = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers"];

/**
 * For a runner running as root (containers, many CI images): the system's files that only root
 * may read, to cover with an empty file. The sandbox drops every capability, but root still owns
 * them, so their mode lets it read them. Other users' private files stay closed without a mask
 * (no capability overrides their mode).
 */
async function rootOnlySecrets(uid: number | undefined): Promise<string[]> {
  if (uid !== 0) return [];
  const hostKeys = (await readdir("/etc/ssh").catch(() => [] as string[]))
    .filter((name) => /^ssh_host_.*_key$/.test(name))
    .map((name) => path.join("/etc/ssh", name));
  const found: string[] = [];
  for (const file of [...ROOT_ONLY_FILES, ...hostKeys]) {
    const info = await stat(file).catch(() => undefined);
    // World-readable ones hold nothing the sandbox's other users could not read anyway.
    if (info?.isFile() && (info.mode & 0o004) === 0) found.push(file);
  }
  return found;
}

/** `a/b` → file or folder a/b; `a/b/**` → folder a/b; anything with other glob syntax → undefined. */
export function literalPrefix(glob: string): { path: string; dir: boolean } | undefined {
  const trimmed = glob.replace(/^\.\//, "");
  const dir = trimmed.endsWith("/**");
  const base = dir ? trimmed.slice(0, -3) : trimmed.replace(/\/$/, "");
  if (base === "" || /[*?[\]{}()!+@]/.test(base)) return undefined;
  return { path: base, dir };
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined)) !== undefined;
}

/** mkdir -p that returns the folders it created, outermost first. */
async function mkdirTracked(target: string, root: string): Promise<string[]> {
  const missing: string[] = [];
  for (let dir = target; dir !== root && !(await exists(dir)); dir = path.dirname(dir)) missing.unshift(dir);
  await mkdir(target, { recursive: true });
  return missing;
}

/**
 * The folder of the resolver configuration `/etc/resolv.conf` links to, when it lies in `/run`
 * (systemd-resolved's local resolver file, as on GitHub's runners): bound back read-only for a sandbox with the
 * network, which needs DNS but none of the rest of `/run` (the Docker socket is there).
 */
async function resolverDirs(): Promise<string[]> {
  const target = await realpath("/etc/resolv.conf").catch(() => undefined);
  if (target === undefined || !isInside(target, "/run") || target === "/run") return [];
  // A file right in /run is bound alone: its folder is all of /run.
  return [path.dirname(target) === "/run" ? target : path.dirname(target)];
}

/**
 * The PATH's folders that a tmpfs would hide (a project under /tmp or $HOME, whose
 * `node_modules/.bin` the task's commands rely on), as the folders to bind back read-only: the
 * enclosing `node_modules` for a `.bin` (its links point into it), else the folder itself.
 */
export async function hiddenPathDirs(pathVar: string | undefined, hidden: string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const entry of (pathVar ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(entry) || !hidden.some((dir) => isInside(entry, dir))) continue;
    const real = await realpath(entry).catch(() => undefined);
    if (!real) continue;
    const parent = path.dirname(real);
    out.add(path.basename(real) === ".bin" && path.basename(parent) === "node_modules" ? parent : real);
  }
  return [...out];
}
