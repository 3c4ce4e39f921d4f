/**
 * The workspace snapshot taken at the start of a run: a git tree of everything in the workspace
 * (tracked, modified and untracked files; ignored ones and `exclude` left out), written through a
 * private git dir and index in a temp directory. The user's index, HEAD, branches, stash, refs and
 * object store are never written: in a git workspace the private git dir borrows the user's objects
 * read-only (`objects/info/alternates`) and reads their `.gitignore` files and `info/exclude`.
 */
import { rmSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { git, gitOrThrow } from "./git.ts";

/** Attributes that would make git store something other than the bytes on disk (EOL, LFS, ident). */
const RAW_BYTES_ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n";

/** A snapshot handle. Holds a temp directory until `disposeSnapshot` (or process exit). */
export interface WorkspaceSnapshot {
  /** Absolute, real path of the workspace root. */
  root: string;
  /** The tree id of the workspace at snapshot time. */
  tree: string;
  /** The git work tree used: the enclosing repository's top level, or `root` when not in a repository. */
  workTree: string;
  /** `root` relative to `workTree`, `/`-separated, with a trailing `/`; `""` when they are the same. */
  prefix: string;
  /** Pathspecs (relative to `workTree`) limiting every add to the workspace. Exclusions are in the private info/exclude. */
  pathspecs: string[];
  /** Temp directory holding the private git dir and index; removed by `disposeSnapshot`. */
  tempDir: string;
  /** Environment for git calls on this snapshot (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE). */
  env: Record<string, string>;
  /** Whether the workspace is inside a git repository. */
  inRepository: boolean;
}

export interface SnapshotOptions {
  /**
   * Paths to leave out, absolute or relative to the root (typically the outputs dir). A directory
   * excludes everything under it. Paths outside the workspace are ignored.
   */
  exclude?: string[];
}

const liveTempDirs = new Set<string>();
let exitHookInstalled = false;

function trackTempDir(dir: string): void {
  liveTempDirs.add(dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const leftover of liveTempDirs) rmSync(leftover, { recursive: true, force: true });
  });
}

/**
 * Snapshots the workspace at `root`. Throws (with git's message) when git is missing or the
 * workspace cannot be read; the temp directory is removed in that case.
 */
export async function snapshotWorkspace(
  root: string,
  options: SnapshotOptions = {},
): Promise<WorkspaceSnapshot> {
  const realRoot = await fs.realpath(root);
  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), "agent-run-snapshot-"));
  trackTempDir(tempDir);
  try {
    const gitDir = path.join(tempDir, "git");
    const repo = await findRepository(realRoot);
    const workTree = repo?.topLevel ?? realRoot;
    const prefix = toPrefix(path.relative(workTree, realRoot));

    const initArgs = ["init", "--quiet", "--bare"];
    if (repo?.objectFormat && repo.objectFormat !== "sha1")
      initArgs.push(`--object-format=${repo.objectFormat}`);
    await gitOrThrow([...initArgs, gitDir], { cwd: tempDir });
    await fs.mkdir(path.join(gitDir, "info"), { recursive: true });
    await fs.writeFile(path.join(gitDir, "info", "attributes"), RAW_BYTES_ATTRIBUTES);
    let userExclude = "";
    if (repo) {
      await fs.mkdir(path.join(gitDir, "objects", "info"), { recursive: true });
      await fs.writeFile(path.join(gitDir, "objects", "info", "alternates"), `${repo.objectsDir}\n`);
      userExclude = await fs.readFile(repo.excludeFile, "utf8").catch(() => "");
    }
    // Exclusions go in info/exclude rather than pathspecs: `git add` refuses a pathspec naming an
    // ignored path, and an outputs dir is often in .gitignore. The private index starts empty, so
    // nothing excluded can already be tracked in it.
    const excluded = await Promise.all(
      (options.exclude ?? []).map((entry) => realPathLoose(path.resolve(realRoot, entry))),
    );
    const lines = excludeLines(realRoot, workTree, excluded);
    await fs.writeFile(path.join(gitDir, "info", "exclude"), `${userExclude}\n${lines.join("\n")}\n`);

    const env = {
      GIT_DIR: gitDir,
      GIT_WORK_TREE: workTree,
      GIT_INDEX_FILE: path.join(tempDir, "index"),
    };
    // A bare init leaves core.bare=true, which forbids a work tree.
    await gitOrThrow(["config", "core.bare", "false"], { cwd: tempDir, env });
    const pathspecs = [prefix === "" ? "." : `:(literal)${prefix}`];
    const snapshot: WorkspaceSnapshot = {
      root: realRoot,
      tree: "",
      workTree,
      prefix,
      pathspecs,
      tempDir,
      env,
      inRepository: repo !== undefined,
    };
    snapshot.tree = await writeTree(snapshot);
    return snapshot;
  } catch (error) {
    await removeTempDir(tempDir);
    throw error;
  }
}

/** Removes the snapshot's temp directory. Safe to call more than once. */
export async function disposeSnapshot(snapshot: WorkspaceSnapshot): Promise<void> {
  await removeTempDir(snapshot.tempDir);
}

/** Adds the current state of the workspace to the snapshot's private index and returns its tree id. */
export async function writeTree(snapshot: WorkspaceSnapshot): Promise<string> {
  const options = { cwd: snapshot.workTree, env: snapshot.env };
  // Outside a repository every blob is new: streaming them all into one pack (bulk check-in) beats
  // a loose file each (20,000 files: ~1 s instead of 1-6 s). Inside one most blobs already exist
  // and are only hashed, which bulk check-in would slow down by compressing them first. Only for
  // `add`: for `diff` the threshold would mean "binary".
  const bulk = snapshot.inRepository ? [] : ["-c", "core.bigFileThreshold=1"];
  await gitOrThrow([...bulk, "add", "--all", "--", ...snapshot.pathspecs], options);
  return (await gitOrThrow(["write-tree"], options)).trim();
}

async function removeTempDir(dir: string): Promise<void> {
  liveTempDirs.delete(dir);
  await fs.rm(dir, { recursive: true, force: true });
}

interface Repository {
  topLevel: string;
  objectsDir: string;
  excludeFile: string;
  objectFormat: string;
}

async function findRepository(root: string): Promise<Repository | undefined> {
  const result = await git(
    [
      "rev-parse",
      "--path-format=absolute",
      "--show-toplevel",
      "--git-path",
      "objects",
      "--git-path",
      "info/exclude",
      "--show-object-format",
    ],
    { cwd: root },
  );
  if (result.failed) return undefined;
  const [topLevel, objectsDir, excludeFile, objectFormat] = result.stdout.split("\n");
  // A bare repository or a .git directory has no top level: treat it as a plain directory.
  if (!topLevel || !objectsDir || !excludeFile) return undefined;
  return {
    topLevel: await fs.realpath(topLevel),
    objectsDir,
    excludeFile,
    objectFormat: objectFormat || "sha1",
  };
}

function toPrefix(relative: string): string {
  if (relative === "") return "";
  return `${relative.split(path.sep).join("/")}/`;
}

/** The real path of `target`, resolving its nearest existing ancestor when it does not exist (yet). */
async function realPathLoose(target: string): Promise<string> {
  try {
    return await fs.realpath(target);
  } catch {
    const parent = path.dirname(target);
    if (parent === target) return target;
    return path.join(await realPathLoose(parent), path.basename(target));
  }
}

/** Gitignore lines (anchored at the work tree, special characters escaped) for the excluded paths inside the workspace. */
function excludeLines(root: string, workTree: string, excluded: string[]): string[] {
  const lines: string[] = [];
  for (const absolute of excluded) {
    const relative = path.relative(root, absolute);
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) continue;
    const fromWorkTree = path.relative(workTree, absolute).split(path.sep).join("/");
    lines.push(`/${fromWorkTree.replace(/[\\*?[\]!#]/g, "\\$&").replace(/ $/, "\\ ")}`);
  }
  return lines;
}
