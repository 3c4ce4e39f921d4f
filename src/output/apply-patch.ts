/**
 * An earlier run's patch.diff against a workspace: whether it applies, whether the workspace holds
 * it already, applying it, and taking it out of a snapshot. Paths in the patch are relative to the
 * workspace, so git runs with the workspace as its work tree and an empty git dir of its own: a
 * plain `git apply` in a subfolder of a repository would read the paths from the repository's top
 * and skip them, exiting 0. `git apply` is all or nothing: a patch that does not apply changes
 * nothing.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { makeRunTempDir, removeRunTempDir } from "../system/run-temp.ts";
import { git, gitOrThrow } from "./git.ts";
import type { WorkspaceSnapshot } from "./snapshot.ts";

/** Where a patch stands against a workspace. */
export type PatchState =
  | { state: "empty" }
  /** The workspace does not hold the changes yet, and they apply cleanly. */
  | { state: "applies" }
  /** The workspace holds the changes already (the patch applies in reverse). */
  | { state: "held" }
  /** Neither: git's first lines say why. */
  | { state: "conflicts"; detail: string };

/** Checks `patchFile` against `workspace` without changing anything. */
export async function checkPatch(workspace: string, patchFile: string): Promise<PatchState> {
  const stat = await fs.stat(patchFile);
  if (stat.size === 0) return { state: "empty" };
  return withBareGitDir(async (env) => {
    const forward = await git(["apply", "--check", "--binary", patchFile], {
      cwd: workspace,
      env: env(workspace),
    });
    if (!forward.failed) return { state: "applies" };
    const reverse = await git(["apply", "--check", "--reverse", "--binary", patchFile], {
      cwd: workspace,
      env: env(workspace),
    });
    if (!reverse.failed) return { state: "held" };
    const detail = (forward.stderr.trim() || forward.shortMessage).split("\n").slice(0, 3).join("; ");
    return { state: "conflicts", detail };
  });
}

/** Applies `patchFile` to the files of `workspace` (all or nothing). Throws with git's message. */
export async function applyPatch(workspace: string, patchFile: string): Promise<void> {
  await withBareGitDir(async (env) => {
    await gitOrThrow(["apply", "--binary", patchFile], { cwd: workspace, env: env(workspace) });
  });
}

/**
 * Takes `patchFile` out of the snapshot: the snapshot's tree becomes the workspace as it was
 * before the patch, so a diff against it holds the patch's changes and every later one. For a
 * workspace that holds an earlier run's changes already. Throws with git's message.
 */
export async function unapplyFromSnapshot(snapshot: WorkspaceSnapshot, patchFile: string): Promise<void> {
  const options = { cwd: snapshot.workTree, env: snapshot.env };
  const directory = snapshot.prefix === "" ? [] : [`--directory=${snapshot.prefix.replace(/\/$/, "")}`];
  await gitOrThrow(["apply", "--cached", "--reverse", "--binary", ...directory, patchFile], options);
  snapshot.tree = (await gitOrThrow(["write-tree"], options)).trim();
}

async function withBareGitDir<T>(
  use: (env: (workTree: string) => Record<string, string>) => Promise<T>,
): Promise<T> {
  // A run temp dir: the reaper removes it when the runner is killed outright.
  const dir = await makeRunTempDir("apply");
  try {
    const gitDir = path.join(dir, "git");
    await gitOrThrow(["init", "--quiet", "--bare", gitDir], { cwd: dir });
    await gitOrThrow(["config", "core.bare", "false"], { cwd: dir, env: { GIT_DIR: gitDir } });
    // As for the snapshot: the bytes in the patch are the bytes on disk, whatever .gitattributes say.
    await fs.mkdir(path.join(gitDir, "info"), { recursive: true });
    await fs.writeFile(
      path.join(gitDir, "info", "attributes"),
      "* -text -filter -ident -working-tree-encoding\n",
    );
    return await use((workTree) => ({ GIT_DIR: gitDir, GIT_WORK_TREE: workTree }));
  } finally {
    await removeRunTempDir(dir);
  }
}
