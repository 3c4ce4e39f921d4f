/**
 * Submodules (and nested repositories) inside the workspace. The patch holds a submodule only as a
 * commit id (a gitlink), and the snapshot's `git add` does not even follow its commits: whatever the
 * run changes inside one, patch.diff cannot hold. So each gets a snapshot of its own work tree at
 * the start, and at the end a note for every submodule whose files or HEAD changed.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { errorText } from "../core/errors.ts";
import { git, gitOrThrow } from "./git.ts";
import { gitlinkPaths } from "./index-entries.ts";
import { snapshotWorkspace, updateTree, type WorkspaceSnapshot } from "./snapshot.ts";

export interface SubmoduleSnapshot {
  /** Path relative to the parent's work tree, `/`-separated. */
  path: string;
  /** The submodule's HEAD commit at the start ("" when it has none). */
  head: string;
  snapshot: WorkspaceSnapshot;
}

/** Snapshots every gitlink of the parent's start tree that is checked out (has a `.git`). */
export async function snapshotSubmodules(
  parent: WorkspaceSnapshot,
  signal?: AbortSignal,
): Promise<SubmoduleSnapshot[]> {
  const submodules: SubmoduleSnapshot[] = [];
  for (const file of await gitlinksOf(parent, signal)) {
    const dir = path.join(parent.workTree, file);
    try {
      const snapshot = await snapshotWorkspace(dir, signal && { signal });
      submodules.push({ path: file, head: await headOf(dir), snapshot });
    } catch (error) {
      parent.notes.add(`the submodule ${shown(parent, file)} could not be watched: ${errorText(error)}`);
    }
  }
  return submodules;
}

/**
 * The gitlinks of the parent's private index below its prefix: read from the index file (one git
 * process less on the way to the first tool), or listed by git when that file is not one the
 * reader takes.
 */
async function gitlinksOf(parent: WorkspaceSnapshot, signal?: AbortSignal): Promise<string[]> {
  const file = parent.env.GIT_INDEX_FILE;
  const index = file === undefined ? undefined : await readFile(file).catch(() => undefined);
  const read = index && parent.tree !== "" && gitlinkPaths(index, parent.tree.length / 2);
  if (read) return read.filter((entry) => entry.startsWith(parent.prefix));
  const listing = await gitOrThrow(["ls-files", "-s", "-z", "--", ...parent.pathspecs], {
    cwd: parent.workTree,
    env: parent.env,
    ...(signal && { signal }),
  });
  return listing
    .split("\0")
    .filter((record) => record.startsWith("160000 "))
    .map((record) => record.slice(record.indexOf("\t") + 1));
}

/**
 * Notes (also added to each snapshot's `notes`) for the submodules whose work tree or HEAD changed
 * since the start, nested ones included. Never throws: a submodule that cannot be read says so.
 */
export async function noteSubmoduleChanges(parent: WorkspaceSnapshot): Promise<void> {
  for (const submodule of parent.submodules) {
    const name = shown(parent, submodule.path);
    try {
      const dir = submodule.snapshot.root;
      const [tree, head] = await Promise.all([updateTree(submodule.snapshot), headOf(dir)]);
      const what: string[] = [];
      if (tree !== submodule.snapshot.tree) what.push("its files changed");
      if (head !== submodule.head) what.push(`its HEAD moved (${short(submodule.head)} to ${short(head)})`);
      if (what.length > 0) {
        parent.notes.add(
          `the submodule ${name} has changes that patch.diff cannot hold (${what.join(", ")}): a patch carries a submodule only as a commit id`,
        );
      }
      await noteSubmoduleChanges(submodule.snapshot);
      for (const note of submodule.snapshot.notes) parent.notes.add(`in ${name}: ${note}`);
    } catch (error) {
      parent.notes.add(`the submodule ${name} could not be checked for changes: ${errorText(error)}`);
    }
  }
}

async function headOf(dir: string): Promise<string> {
  const result = await git(["rev-parse", "--verify", "-q", "HEAD"], { cwd: dir });
  return result.failed ? "" : result.stdout.trim();
}

function short(commit: string): string {
  return commit === "" ? "none" : commit.slice(0, 12);
}

function shown(parent: WorkspaceSnapshot, file: string): string {
  return file.startsWith(parent.prefix) ? file.slice(parent.prefix.length) : file;
}
