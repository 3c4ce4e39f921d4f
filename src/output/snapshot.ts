/**
 * The workspace snapshot: a git tree of everything in the workspace at the start of a run (tracked,
 * modified and untracked files; ignored ones and `exclude` left out), kept in a private git dir and
 * index in a temp directory, and updated as the run goes (`updateTree`), so the tree of the
 * workspace now is always one cheap step away. The user's index, HEAD, branches, stash, refs and
 * object store are never written: in a git workspace the private git dir borrows the user's objects
 * read-only (`objects/info/alternates`) and reads their `.gitignore` files and `info/exclude`.
 *
 * Files git ignored at the start stay out, even when the run changes the ignore rules: see
 * ./ignored-at-start.ts. Submodules are watched on their own: see ./submodules.ts.
 */
import { lstatSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { makeRunTempDir, removeRunTempDir, removeStaleRunTempDirs } from "../system/run-temp.ts";
import { clockAfter, clockNow } from "./fs-clock.ts";
import { anchoredPattern, type GitWrap, git, gitOrThrow, readingWorkspace } from "./git.ts";
import {
  addTrackedIgnored,
  type IgnoredAtStart,
  listIgnoredAtStart,
  reconcileUnignored,
} from "./ignored-at-start.ts";
import { indexEntriesDigest, treeObjectsOf } from "./index-entries.ts";
import { writeLooseObjects } from "./loose-objects.ts";
import { seedPrivateIndex } from "./seed-index.ts";
import { type SubmoduleSnapshot, snapshotSubmodules } from "./submodules.ts";

/** Attributes that would make git store something other than the bytes on disk (EOL, LFS, ident). */
const RAW_BYTES_ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n";

/** A snapshot handle. Holds a temp directory until `disposeSnapshot` (or process exit). */
export interface WorkspaceSnapshot {
  /** Absolute, real path of the workspace root. */
  root: string;
  /**
   * The tree id of the workspace at snapshot time. Grows when files ignored at the start are
   * un-ignored by the run unchanged: their start content joins it (see ./ignored-at-start.ts).
   */
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
  /** Whether the private index started as a copy of the repository's (./seed-index.ts). */
  seededIndex?: boolean;
  /**
   * A file time (ns since the epoch) after the snapshot was taken and before anything the run did:
   * a file with an older ctime has not changed since the snapshot.
   */
  startedNs: bigint;
  /** What git ignored at the start. */
  ignored: IgnoredAtStart;
  /** Submodules and nested repositories at the start, each with a snapshot of its own. */
  submodules: SubmoduleSnapshot[];
  /** Things a reader of the patch must know, one line each (files the patch leaves out), deduplicated. */
  notes: Set<string>;
  /** The update in flight: updates of one snapshot run one at a time (they share the index). */
  queue: Promise<unknown>;
  /** The tree last written from the index, with the digest of the index's entries then: see `updateIndex`. */
  written?: { tree: string; entries: string | undefined };
  /** The object store of the enclosing repository, borrowed read-only; undefined outside one. */
  userObjects?: string;
  /**
   * While set, the git calls of `updateTree` that read the workspace's files run through it: in a
   * bwrap that sees what the model's sandbox sees. git's directory walk is not race-safe (a folder
   * it listed can be a symlink out by the time it opens it), and a process the model left running
   * may be swapping one; inside such a bwrap the link can only lead where the model could read anyway.
   */
  confine?: GitWrap;
}

export interface SnapshotOptions {
  /**
   * Paths to leave out, absolute or relative to the root (typically the outputs dir). A directory
   * excludes everything under it. Paths outside the workspace are ignored.
   */
  exclude?: string[];
  /** Watch submodules (default true; false for a submodule's own snapshot, whose parent watches them). */
  submodules?: boolean;
  /** false: the private index starts empty in a repository too (./seed-index.ts); default true. */
  seedIndex?: boolean;
  /**
   * Aborting stops the snapshot: its git is killed, it rejects, and its temp directory is removed
   * in the background (a run that ended before anything could change a file needs no snapshot).
   */
  signal?: AbortSignal;
}

/**
 * Snapshots the workspace at `root`. Throws (with git's message) when git is missing or the
 * workspace cannot be read; the temp directory is removed in that case. The first call of a process
 * also starts removing the temp dirs of earlier runs whose process is gone (in the background).
 */
export async function snapshotWorkspace(
  root: string,
  options: SnapshotOptions = {},
): Promise<WorkspaceSnapshot> {
  const { signal } = options;
  removeStaleRunTempDirs();
  const realRoot = await fs.realpath(root);
  const tempDir = await makeRunTempDir("snapshot");
  try {
    const gitDir = path.join(tempDir, "git");
    const repo = await findRepository(realRoot, signal);
    const workTree = repo?.topLevel ?? realRoot;
    const prefix = toPrefix(path.relative(workTree, realRoot));

    await makeGitDir(gitDir, repo?.objectFormat ?? "sha1");
    let userExclude = "";
    if (repo) {
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
      startedNs: 0n,
      ignored: { entries: new Set(), blobs: new Map(), excluded: new Set() },
      submodules: [],
      notes: new Set(),
      queue: Promise.resolve(),
      ...(repo && { userObjects: repo.objectsDir }),
    };
    // Every step stops with the signal (its git killed), not only the next one: a quick answer's
    // run ends as soon as it is written, whichever step the snapshot is at.
    // In a repository the private index starts as a copy of the user's where that is sound, so
    // the first add re-reads only what changed since; the copy holds their tracked ignored files too.
    const seeded =
      repo?.indexFile !== undefined && prefix === "" && options.seedIndex !== false
        ? await seedPrivateIndex(
            {
              workTree,
              userIndex: path.resolve(workTree, repo.indexFile),
              privateIndex: env.GIT_INDEX_FILE,
              env,
              hashBytes: repo.objectFormat === "sha256" ? 32 : 20,
              excluded: relativeInside(workTree, excluded),
            },
            signal,
          )
        : false;
    snapshot.seededIndex = seeded;
    if (repo && !seeded) await addTrackedIgnored(snapshot, excluded, signal);
    signal?.throwIfAborted();
    await addAll(snapshot, { first: true, ...(signal && { signal }) });
    snapshot.written = await writeIndexTree(snapshot, signal);
    snapshot.tree = snapshot.written.tree;
    signal?.throwIfAborted();
    snapshot.ignored = await listIgnoredAtStart(snapshot, excluded, signal);
    signal?.throwIfAborted();
    if (options.submodules !== false) snapshot.submodules = await snapshotSubmodules(snapshot, signal);
    signal?.throwIfAborted();
    snapshot.startedNs = await nextClockTick(tempDir);
    return snapshot;
  } catch (error) {
    await removeRunTempDir(tempDir, { background: signal?.aborted === true });
    throw error;
  }
}

/**
 * The snapshot's private git dir, written directly: what `git init` would make of it, without the
 * templates (sample hooks, description) and without one more process on the way to the first
 * tool. Not bare, as it serves a work tree; no compression, as the store is thrown away at the
 * end and zlib would only slow every add (a 300 MB file: 9 s instead of 1.7 s).
 */
async function makeGitDir(gitDir: string, objectFormat: string): Promise<void> {
  await Promise.all(
    [["objects", "info"], ["objects", "pack"], ["refs", "heads"], ["refs", "tags"], ["info"]].map((parts) =>
      fs.mkdir(path.join(gitDir, ...parts), { recursive: true }),
    ),
  );
  const sha1 = objectFormat === "sha1";
  const config = [
    "[core]",
    // Version 1 is what lets a repository name its object format (extensions.objectFormat).
    `\trepositoryformatversion = ${sha1 ? 0 : 1}`,
    "\tfilemode = true",
    "\tbare = false",
    "\tcompression = 0",
    ...(sha1 ? [] : ["[extensions]", `\tobjectFormat = ${objectFormat}`]),
    "",
  ];
  await Promise.all([
    fs.writeFile(path.join(gitDir, "HEAD"), "ref: refs/heads/main\n"),
    fs.writeFile(path.join(gitDir, "config"), config.join("\n")),
    fs.writeFile(path.join(gitDir, "info", "attributes"), RAW_BYTES_ATTRIBUTES),
  ]);
}

/**
 * Removes the snapshot's temp directory (and its submodules'). Safe to call more than once. With
 * `background`, possibly after it resolves (see removeRunTempDir).
 */
export async function disposeSnapshot(
  snapshot: WorkspaceSnapshot,
  options: { background?: boolean } = {},
): Promise<void> {
  await snapshot.queue.catch(() => {});
  for (const submodule of snapshot.submodules) await disposeSnapshot(submodule.snapshot, options);
  await removeRunTempDir(snapshot.tempDir, options);
}

/**
 * Adds the current state of the workspace to the snapshot's private index and returns its tree id.
 * Only files whose stat data changed since the last update are read again, so an update after a
 * turn costs a walk of the workspace plus the changed files. Calls on one snapshot run in turn.
 */
export function updateTree(snapshot: WorkspaceSnapshot): Promise<string> {
  return queued(snapshot, async () => {
    await addToIndex(snapshot);
    snapshot.written = await writeIndexTree(snapshot);
    return snapshot.written.tree;
  });
}

/**
 * Adds the current state of the workspace to the private index as `updateTree` does, without
 * writing its tree (one git process less at the end of a run): answers the tree when the index
 * holds the entries it held when a tree was last written (the end of a run whose last turns
 * changed nothing since its checkpoint; see ./index-entries.ts), else undefined, and the index is
 * for `computePatch(snapshot, THE_INDEX)` to diff.
 */
export function updateIndex(snapshot: WorkspaceSnapshot): Promise<string | undefined> {
  return queued(snapshot, async () => {
    await addToIndex(snapshot);
    const entries = await entriesDigest(snapshot);
    const { written } = snapshot;
    return entries !== undefined && written?.entries === entries ? written.tree : undefined;
  });
}

function queued<T>(snapshot: WorkspaceSnapshot, update: () => Promise<T>): Promise<T> {
  const next = snapshot.queue.catch(() => {}).then(update);
  snapshot.queue = next;
  return next;
}

async function addToIndex(snapshot: WorkspaceSnapshot): Promise<void> {
  await addAll(snapshot);
  if (snapshot.ignored.entries.size > 0) await reconcileUnignored(snapshot);
}

/** A snapshot's buffer for reading its index, kept: fresh pages for a 1.6 MB index cost ~5 ms here. */
const indexBuffers = new WeakMap<WorkspaceSnapshot, Buffer>();

/** The digest of the private index's entries (./index-entries.ts); undefined when it cannot be read. */
async function entriesDigest(
  snapshot: WorkspaceSnapshot,
  hashBytes = snapshot.tree.length / 2,
): Promise<string | undefined> {
  const index = await readPrivateIndex(snapshot);
  // The start tree's id is as long as every object id of the store (SHA-1 or SHA-256, in hex).
  return index && indexEntriesDigest(index, hashBytes);
}

/** The private index file's bytes, in a buffer kept for the snapshot; undefined when it cannot be read. */
async function readPrivateIndex(snapshot: WorkspaceSnapshot): Promise<Buffer | undefined> {
  const file = snapshot.env.GIT_INDEX_FILE;
  if (file === undefined) return undefined;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, "r");
    const { size } = await handle.stat();
    let buffer = indexBuffers.get(snapshot);
    if (!buffer || buffer.length < size) {
      buffer = Buffer.allocUnsafe(size + (size >> 3));
      indexBuffers.set(snapshot, buffer);
    }
    let read = 0;
    while (read < size) {
      const { bytesRead } = await handle.read(buffer, read, size - read, read);
      if (bytesRead === 0) return undefined;
      read += bytesRead;
    }
    return buffer.subarray(0, size);
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/** The former name of `updateTree`. */
export const writeTree = updateTree;

async function addAll(
  snapshot: WorkspaceSnapshot,
  how: { first?: boolean; signal?: AbortSignal } = {},
): Promise<void> {
  const options = { ...readingWorkspace(snapshot), ...(how.signal && { signal: how.signal }) };
  // Outside a repository every blob of the first add is new: streaming them all into one pack (bulk
  // check-in) beats a loose file each (20,000 files: ~1 s instead of 1-6 s). Not for the adds
  // after it (turn-end checkpoints, the end), as inside a repository: there each would leave a
  // pack more, and a bulk check-in rescans the pack folder for each file it hashes, every file
  // changed since the last add (10 in 20,000: 112 ms against 87 loose; 31 racily clean ones: 13-16
  // ms against 1). Only for `add`: for `diff` the threshold would mean "binary".
  const bulk = snapshot.inRepository || !how.first ? [] : ["-c", "core.bigFileThreshold=1"];
  await gitOrThrow([...bulk, "add", "--all", "--", ...snapshot.pathspecs], options);
}

/**
 * Writes the private index's tree and answers it with the digest of the entries it was written
 * from (./index-entries.ts). Outside a repository a small index's trees are built here and written
 * into the private store (`treeObjectsOf`): one git process less at the start and at each update
 * (10 ms alone on a 2-core runner, 20-40 beside a run's start), the index read once for both. A
 * repository's trees are mostly in its own store already, which only git's write-tree looks in; a
 * big index's trees are git's too.
 */
async function writeIndexTree(
  snapshot: WorkspaceSnapshot,
  signal?: AbortSignal,
): Promise<{ tree: string; entries: string | undefined }> {
  const gitDir = snapshot.env.GIT_DIR;
  if (!snapshot.inRepository && gitDir !== undefined) {
    const index = await readPrivateIndex(snapshot);
    // A plain folder's store is SHA-1: its git dir is made so (makeGitDir).
    const trees = index && treeObjectsOf(index, 20);
    const root = trees?.at(-1);
    if (index && trees && root) {
      await writeLooseObjects(gitDir, trees);
      // After the trees: the digest overwrites the index's stat data in the buffer.
      return { tree: root.id, entries: indexEntriesDigest(index, 20) };
    }
  }
  const options = { cwd: snapshot.workTree, env: snapshot.env, ...(signal && { signal }) };
  const tree = (await gitOrThrow(["write-tree"], options)).trim();
  return { tree, entries: await entriesDigest(snapshot, tree.length / 2) };
}

/**
 * The file system's clock one tick past every change made so far (see fs-clock.ts): what a file
 * changed from now on has as its ctime at least.
 */
async function nextClockTick(dir: string): Promise<bigint> {
  const before = await clockNow(dir);
  return (await clockAfter(dir, before)) ?? before + 1n;
}

interface Repository {
  topLevel: string;
  objectsDir: string;
  excludeFile: string;
  objectFormat: string;
  /** The repository's own index file; absent when git did not name one. */
  indexFile?: string;
}

async function findRepository(root: string, signal?: AbortSignal): Promise<Repository | undefined> {
  if (outsideAnyRepository(root)) return undefined;
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
      "--git-path",
      "index",
    ],
    { cwd: root, ...(signal && { signal }) },
  );
  signal?.throwIfAborted();
  if (result.failed) return undefined;
  const [topLevel, objectsDir, excludeFile, objectFormat, indexFile] = result.stdout.split("\n");
  // A bare repository or a .git directory has no top level: treat it as a plain directory.
  if (!topLevel || !objectsDir || !excludeFile) return undefined;
  return {
    topLevel: await fs.realpath(topLevel),
    objectsDir,
    excludeFile,
    objectFormat: objectFormat || "sha1",
    ...(indexFile && { indexFile }),
  };
}

/**
 * Whether git's discovery from `root` can only end in "not a git repository": no folder from
 * `root` up to `/` holds a `.git` (folder, file or link) or is itself a git dir (a `HEAD` beside an
 * `objects`). Git looks for nothing else here: the runner's git gets no `GIT_*` variable and no
 * system or global config (./git.ts). A plain folder's snapshot then skips one git process on the
 * way to the first tool (10 ms alone on this machine, 25-35 ms beside a run's start). Any answer
 * but "no such file" from the file system leaves the question to git.
 */
function outsideAnyRepository(root: string): boolean {
  for (let dir = root; ; dir = path.dirname(dir)) {
    if (!missing(path.join(dir, ".git"))) return false;
    if (!missing(path.join(dir, "HEAD")) && !missing(path.join(dir, "objects"))) return false;
    if (path.dirname(dir) === dir) return true;
  }
}

function missing(file: string): boolean {
  try {
    lstatSync(file);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
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

/** The `/`-separated paths of `absolute` below `workTree` (those outside it left out). */
function relativeInside(workTree: string, absolute: string[]): string[] {
  return absolute
    .map((target) => path.relative(workTree, target))
    .filter((relative) => relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative))
    .map((relative) => relative.split(path.sep).join("/"));
}

/** Gitignore lines (anchored at the work tree, special characters escaped) for the excluded paths inside the workspace. */
function excludeLines(root: string, workTree: string, excluded: string[]): string[] {
  const lines: string[] = [];
  for (const absolute of excluded) {
    const relative = path.relative(root, absolute);
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) continue;
    lines.push(anchoredPattern(path.relative(workTree, absolute).split(path.sep).join("/")));
  }
  return lines;
}
