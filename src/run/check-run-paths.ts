import { lstat, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { OUTPUT_FILES } from "../output/index.ts";
import { refusedWorkspace, WORKSPACE_ADVICE } from "../spec/workspace-rule.ts";
import { checkWritableFile, prepareWritableDir, removeDirs } from "../system/writable-path.ts";
import { RunSetupError } from "./types.ts";

export interface RunPaths {
  /** Absolute. */
  workspace: string;
  /** Absolute. */
  outDir: string;
  /** The `--record` file, as given. */
  record?: string | undefined;
}

/**
 * The prepare phase's first check: the workspace is an existing folder a task may own (not `/`,
 * a home or a system folder). Throws `RunSetupError` (exit 2).
 */
export async function checkWorkspace(workspace: string, env: NodeJS.ProcessEnv): Promise<void> {
  const info = await stat(workspace).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new RunSetupError("workspace_missing", `the workspace ${workspace} is not a directory`);
  }
  const refused = await refusedWorkspace(workspace, env);
  if (refused) {
    throw new RunSetupError(
      "workspace_refused",
      `the workspace ${workspace} ${refused}; give ${WORKSPACE_ADVICE}`,
    );
  }
}

/**
 * The prepare phase's checks of where a run writes, for a workspace `checkWorkspace` accepted:
 * the outputs folder is neither the workspace nor one of its parents, can be made and written to
 * (a probe file is really created), and holds no output file that is a symbolic link or not a regular file (the
 * outputs folder is inside the workspace by default, so a checked-out repository could point
 * `events.jsonl` at a file of the machine); the `--record` file can be written. Throws
 * `RunSetupError` (exit 2). Creates the outputs folder, nothing else; `undo` removes the folders it
 * made (while still empty), for a prepare phase that fails later.
 */
export async function checkOutputPaths(paths: RunPaths): Promise<{ undo: () => Promise<void> }> {
  const { workspace, outDir, record } = paths;
  if (outDir === workspace) {
    throw new RunSetupError(
      "outputs_dir_invalid",
      `the outputs folder is the workspace itself (${outDir}); use a subfolder such as .agent-run`,
    );
  }
  if (workspace.startsWith(`${outDir}${path.sep}`) || outDir === path.parse(outDir).root) {
    throw new RunSetupError(
      "outputs_dir_invalid",
      `the outputs folder ${outDir} holds the workspace ${workspace}; use a subfolder such as .agent-run`,
    );
  }
  const insideWorkspace = outDir.startsWith(`${workspace}${path.sep}`);
  if (insideWorkspace && (await lstat(outDir).catch(() => undefined))?.isSymbolicLink()) {
    throw new RunSetupError(
      "outputs_dir_invalid",
      `the outputs folder ${outDir} is a symbolic link inside the workspace; remove it, or pass --out`,
    );
  }
  const writable = await prepareWritableDir(outDir);
  if (!writable.ok) {
    throw new RunSetupError("outputs_dir_invalid", `the outputs folder ${outDir} ${writable.message}`);
  }
  const undo = () => removeDirs(writable.created);
  for (const name of Object.values(OUTPUT_FILES)) {
    const file = path.join(outDir, name);
    const existing = await lstat(file).catch(() => undefined);
    if (existing && !existing.isFile()) {
      const what = existing.isSymbolicLink() ? "a symbolic link" : "not a regular file";
      await undo();
      throw new RunSetupError(
        "outputs_dir_invalid",
        `the output file ${file} is ${what}; remove it (agent-run writes its own)`,
      );
    }
  }

  if (record !== undefined) {
    const target = path.resolve(record);
    const result = await checkWritableFile(target);
    if (!result.ok) {
      await undo();
      throw new RunSetupError("record_path_invalid", `the --record file ${target} ${result.message}`);
    }
  }
  // A folder of ours inside the workspace would otherwise show up in `git status` and be one
  // `git add -A` away from a commit: it ignores itself. Only a folder this run made: one the
  // user made (or committed on purpose) is left as it is.
  if (insideWorkspace && writable.created.includes(outDir)) {
    const ignore = path.join(outDir, ".gitignore");
    await writeFile(ignore, OUTPUTS_GITIGNORE, { flag: "wx" }).catch(() => {});
    return {
      undo: async () => {
        await rm(ignore, { force: true });
        await undo();
      },
    };
  }
  return { undo };
}

/** What a new outputs folder inside the workspace holds besides the outputs: it ignores itself. */
export const OUTPUTS_GITIGNORE =
  "# Written by agent-run: this folder holds a run's outputs, not sources.\n*\n";
