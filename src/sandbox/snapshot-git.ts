/**
 * The workspace snapshot's git, put in a bwrap of its own while the model's processes may live.
 *
 * The runner's `git add` walks the workspace to keep the snapshot current after each turn. A
 * directory walk is not race-safe: a folder git has listed may be a symlink out by the time it
 * opens it, and a process the model left running can swap the two thousands of times a second, so
 * the runner's own git could read a host folder into the patch. In a bwrap with the sandbox's
 * mounts, such a link leads only where the model's commands could read anyway. That bwrap sees
 * one thing more than the model's: the snapshot's private git dir and index, writable. It is
 * not the model's session: no process of the model's can reach that git dir and change what the
 * runner's own git later reads.
 */
import { bubblewrapCommand, type SandboxPolicy, visibleInSandbox } from "./bubblewrap.ts";
import type { WrappableCommand } from "./prepare.ts";

/** Where a workspace snapshot keeps its state and reads the workspace from; paths absolute and real. */
export interface SnapshotPlaces {
  /** The private git dir and index (written by git). */
  tempDir: string;
  /** The work tree git walks (the repository's top level, or the workspace). */
  workTree: string;
  /** The enclosing repository's object store, borrowed read-only; undefined outside a repository. */
  userObjects?: string;
}

/** Variables the snapshot's git keeps inside the bwrap: its own settings, the locale, PATH, malloc's tunables (git.ts). */
const GIT_ENV = /^(GIT_|LC_ALL$|PATH$|GLIBC_TUNABLES$)/;

/**
 * A wrapper running a snapshot's git command inside a bwrap of `policy`'s view plus the snapshot's
 * temp dir, or undefined when that view lacks what git must read (a work tree or object store the
 * sandbox hides): then there is no such place to run it.
 */
export function snapshotGitWrapper(
  policy: Omit<SandboxPolicy, "env">,
  places: SnapshotPlaces,
): ((command: WrappableCommand) => WrappableCommand) | undefined {
  // The runner's own git, not the model's: outside the model's process cap, so a fork bomb of the
  // model's cannot stop a checkpoint, and without the network, which git add never needs.
  const { launcher: _launcher, ...own } = policy;
  const view: Omit<SandboxPolicy, "env"> = {
    ...own,
    network: false,
    writable: [...(policy.writable ?? []), places.tempDir],
  };
  const needed = [places.workTree, ...(places.userObjects !== undefined ? [places.userObjects] : [])];
  if (!needed.every((target) => visibleInSandbox({ ...view, writable: [] }, target))) return undefined;
  return (command) => {
    const env: Record<string, string> = { HOME: policy.home };
    for (const [name, value] of Object.entries(command.env)) if (GIT_ENV.test(name)) env[name] = value;
    // bwrap finds `git` in this PATH, in the workspace as its folder: never through a relative
    // entry, where a `git` the model left would run with the snapshot's private git dir writable.
    if (env.PATH !== undefined)
      env.PATH = env.PATH.split(":")
        .filter((dir) => dir.startsWith("/"))
        .join(":");
    const { file, args } = bubblewrapCommand({ ...view, env }, [command.file, ...command.args], command.cwd);
    return { file, args, cwd: command.cwd, env };
  };
}
