/**
 * Builds the bubblewrap (`bwrap`) command line for one sandboxed command. Pure: no file system
 * access, so the policy can be checked argument by argument; `prepareSandbox` gathers the facts.
 *
 * What the sandbox is, in mount order (later mounts cover earlier ones):
 * - the host's root read-only, a minimal `/dev` (read-only but for its devices) with its own
 *   `/dev/shm`, a fresh `/proc` of a new PID namespace;
 * - empty tmpfs on `/tmp`, `$HOME`, `/run` and every `hide` folder, so other users' sockets
 *   (Docker's among them: a socket is reached by its path, network namespace or not), caches and
 *   the runner's temp files are gone;
 *   `/tmp`, `/dev/shm` and `$HOME` are writable with a size each (`tmpfsBytes`), `/run` and the
 *   `hide` folders are read-only once everything is mounted (they only hide);
 * - every `reveal` folder (the PATH's programs that lived under a hidden folder) bound back read-only;
 * - the workspace bound read-write;
 * - every `readOnly` path bound read-only over itself, each folder between the workspace and it
 *   bound over itself too (a mount point cannot be renamed or removed, so `mv .github x` fails);
 * - every `writable` folder bound read-write (the session's `<outDir>/tool-output`);
 * - every `masks` entry (a file) bound read-only over its target (e.g. a git config without
 *   credentials over `.git/config`, `/dev/null` over `$GITHUB_ENV`).
 * Plus: no network unless `network` (a new, empty network namespace), a new IPC namespace,
 * `--die-with-parent`, `--new-session` (no TIOCSTI into the runner's terminal), `--clearenv`
 * with exactly `env` set, and `--cap-drop ALL`: bubblewrap run by root keeps every capability
 * otherwise, and with CAP_SYS_ADMIN a command could remount the read-only root writable, grow the
 * tmpfs sizes or leave the run's cgroup.
 *
 * Needs bubblewrap 0.5 or later (`--size`); detect.ts probes for it.
 */
import path from "node:path";
import { DEFAULT_CAPS } from "../system/caps.ts";

/** Everything `bubblewrapArgs` needs; paths absolute. */
export interface SandboxPolicy {
  /** The bubblewrap binary. */
  bwrapPath: string;
  /** Bound read-write; every other path is read-only or hidden. */
  workspace: string;
  /** Existing paths inside the workspace bound read-only (files or folders). */
  readOnly: string[];
  /** Files bound read-only over a target path (the target need not exist). */
  masks: { target: string; source: string }[];
  /** Folders replaced by an empty tmpfs. */
  hide: string[];
  /** $HOME inside the sandbox: an empty tmpfs. */
  home: string;
  /**
   * Existing folders under a hidden one bound back read-only (e.g. the PATH's
   * `…/node_modules` when the project lives under /tmp or $HOME). Default: none.
   */
  reveal?: string[];
  /**
   * Existing folders bound read-write after the read-only binds (over them when nested), e.g. the
   * sandbox session's `<outDir>/tool-output`, where it reopens each command's output file. Default: none.
   */
  writable?: string[];
  /** Whether the network namespace is shared with the host. Default false. */
  network: boolean;
  /**
   * Sizes in bytes of the writable tmpfs mounts: `/tmp`, `/dev/shm` and `$HOME`
   * (`caps.tmp_size`, `caps.dev_shm_size`, `caps.home_size`). Default: 1 GiB each.
   */
  tmpfsBytes?: TmpfsSizes;
  /**
   * An argv prefix bubblewrap is started through, which puts itself under the run's process cap
   * and execs bwrap (process-cap.ts). Default: none, bwrap is started as is.
   */
  launcher?: string[];
  /** The complete environment of the sandboxed command. */
  env: Record<string, string>;
}

/** Sizes of the sandbox's writable tmpfs mounts, in bytes. */
export interface TmpfsSizes {
  tmp: number;
  devShm: number;
  home: number;
}

/** `bwrap` arguments (without the binary) that run `command` (argv) in `cwd` under `policy`. */
export function bubblewrapArgs(policy: SandboxPolicy, command: string[], cwd: string): string[] {
  const sizes = policy.tmpfsBytes ?? {
    tmp: DEFAULT_CAPS.tmpBytes,
    devShm: DEFAULT_CAPS.devShmBytes,
    home: DEFAULT_CAPS.homeBytes,
  };
  const size = (bytes: number) => ["--size", String(Math.max(1, Math.floor(bytes)))];
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", ...size(sizes.devShm), "--tmpfs", "/dev/shm"];
  // bwrap's /dev is a tmpfs without a size: read-only, only its device nodes and /dev/shm take writes.
  args.push("--remount-ro", "/dev", "--proc", "/proc", ...size(sizes.tmp), "--tmpfs", "/tmp");
  // A folder inside the workspace stays visible; one holding the workspace is hidden, then the
  // workspace is bound back on top.
  const hideable = (dir: string) => dir !== "/" && !isInside(dir, policy.workspace);
  if (policy.home !== "/tmp" && hideable(policy.home)) args.push(...size(sizes.home), "--tmpfs", policy.home);
  const hidden = unique([...policy.hide, "/run"]).filter(
    (dir) => dir !== "/tmp" && dir !== policy.home && hideable(dir),
  );
  // A folder inside another hidden one is hidden with it; its own tmpfs would be mounted on a
  // path the outer tmpfs then covers (or that does not exist in it).
  const readOnlyTmpfs = hidden.filter(
    (dir) => !hidden.some((outer) => outer !== dir && isInside(dir, outer)),
  );
  for (const dir of readOnlyTmpfs) args.push("--tmpfs", dir);
  for (const dir of unique(policy.reveal ?? [])) {
    if (!isInside(dir, policy.workspace)) args.push("--ro-bind", dir, dir);
  }
  args.push("--bind", policy.workspace, policy.workspace);

  const pinned = new Set<string>();
  const readOnly = unique(
    policy.readOnly.filter((p) => p !== policy.workspace && isInside(p, policy.workspace)),
  );
  readOnly.sort((a, b) => depth(a) - depth(b));
  for (const target of readOnly) {
    for (const ancestor of ancestorsBelow(target, policy.workspace)) {
      if (pinned.has(ancestor) || readOnly.includes(ancestor)) continue;
      pinned.add(ancestor);
      args.push("--bind", ancestor, ancestor);
    }
    args.push("--ro-bind", target, target);
  }
  for (const dir of unique(policy.writable ?? [])) args.push("--bind", dir, dir);
  for (const mask of policy.masks) args.push("--ro-bind", mask.source, mask.target);
  // Last, once the mount points inside them (reveals, the workspace) exist.
  for (const dir of readOnlyTmpfs) args.push("--remount-ro", dir);

  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts");
  if (!policy.network) args.push("--unshare-net");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv");
  for (const [name, value] of Object.entries(policy.env)) args.push("--setenv", name, value);
  args.push("--chdir", cwd, "--", ...command);
  return args;
}

/**
 * The program and arguments that run `command` (argv) in `cwd` under `policy`: bwrap, started
 * through the policy's `launcher` when it has one. What every bubblewrap of a run is started with.
 */
export function bubblewrapCommand(
  policy: SandboxPolicy,
  command: string[],
  cwd: string,
): { file: string; args: string[] } {
  const args = bubblewrapArgs(policy, command, cwd);
  const launcher = policy.launcher ?? [];
  if (launcher.length === 0) return { file: policy.bwrapPath, args };
  return { file: launcher[0]!, args: [...launcher.slice(1), policy.bwrapPath, ...args] };
}

/**
 * A bash script that replaces itself with bwrap running `bash -c <script>` under `policy`: what the
 * bash tool's `prepare` returns as its command, since that tool always runs `bash -c`.
 */
export function sandboxedScript(policy: SandboxPolicy, script: string, cwd: string): string {
  const { file, args } = bubblewrapCommand(policy, ["bash", "-c", script], cwd);
  return `exec ${[file, ...args].map(shellQuote).join(" ")}`;
}

/** Single-quotes a word for bash. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Whether `target` (absolute, real) is there in a sandbox of `policy`, with its host content:
 * inside the workspace or a revealed folder, or under no hidden one.
 */
export function visibleInSandbox(policy: Omit<SandboxPolicy, "env">, target: string): boolean {
  if (isInside(target, policy.workspace)) return true;
  if ((policy.reveal ?? []).some((dir) => isInside(target, dir))) return true;
  if ((policy.writable ?? []).some((dir) => isInside(target, dir))) return true;
  const hidden = ["/tmp", policy.home, ...policy.hide, "/run"];
  return !hidden.some((dir) => dir !== "/" && isInside(target, dir));
}

/** True when `child` is `parent` or lies below it. */
export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function ancestorsBelow(target: string, root: string): string[] {
  const out: string[] = [];
  for (let dir = path.dirname(target); dir !== root && isInside(dir, root); dir = path.dirname(dir)) {
    out.unshift(dir);
  }
  return out;
}

function depth(p: string): number {
  return p.split(path.sep).length;
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
