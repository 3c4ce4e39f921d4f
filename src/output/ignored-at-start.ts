/**
 * Files git ignored at the start of a run, and what happens to them when the run changes the ignore
 * rules. The patch must apply to the start state: a file that existed but was ignored (so not in the
 * start tree) and that the run un-ignores would otherwise show as a new file, and `git apply` refuses
 * to create a file that exists.
 *
 * At the start: the ignored paths (`git status --ignored=matching`: a whole ignored directory is one
 * entry), and the content of the small ignored files among them (hashed into the private store).
 * At each update, an added path under one of those entries is resolved:
 * - a file whose start content was hashed: that content joins the start tree, so the patch shows the
 *   run's change (or none);
 * - a file unchanged since the start (ctime older than the snapshot): its content now is its start
 *   content, which joins the start tree;
 * - otherwise its start content is unknown: the whole entry is left out of the patch, and a note
 *   says so.
 * A hashed file the run deleted and un-ignored stays out (a note says so): deleting it in the patch
 * would publish its content.
 */
import fs, { appendFile, lstat, writeFile } from "node:fs/promises";
import path from "node:path";
import { anchoredPattern, git, gitOrThrow, readingWorkspace } from "./git.ts";
import { looseObject, writeLooseObjects } from "./loose-objects.ts";
import type { WorkspaceSnapshot } from "./snapshot.ts";

/** Ignored files hashed at the start: at most this many... */
export const MAX_HASHED_IGNORED_FILES = 2000;
/** ...of at most this many bytes each... */
export const MAX_HASHED_IGNORED_FILE_BYTES = 4 * 1024 * 1024;
/** ...and this many bytes in all. */
export const MAX_HASHED_IGNORED_BYTES = 32 * 1024 * 1024;

export interface IgnoredAtStart {
  /** Paths (relative to the work tree) git ignored at the start; a directory ends with `/` and covers everything in it. */
  entries: Set<string>;
  /** Mode and blob id of the ignored files hashed at the start. */
  blobs: Map<string, { mode: string; blob: string }>;
  /** Entries left out of the patch: un-ignored by the run, with a start content that is unknown. */
  excluded: Set<string>;
}

/**
 * Lists what git ignores now in the snapshot's workspace (but `excluded`, the paths the snapshot
 * leaves out itself, which no rule of the run's can bring back) and hashes the small ignored files.
 */
export async function listIgnoredAtStart(
  snapshot: WorkspaceSnapshot,
  excluded: string[],
  signal?: AbortSignal,
): Promise<IgnoredAtStart> {
  const options = { cwd: snapshot.workTree, env: snapshot.env, ...(signal && { signal }) };
  // With a HEAD holding the start tree (detached: written here, no ref needed), status reports
  // only what differs from it: the ignored paths, not a line for every file of the index.
  const commit = await writeStartCommit(snapshot.env.GIT_DIR ?? "", snapshot.tree);
  await writeFile(path.join(snapshot.env.GIT_DIR ?? "", "HEAD"), `${commit}\n`);
  const status = await gitOrThrow(
    [
      "status",
      "--porcelain=v2",
      "-z",
      "--ignored=matching",
      "--untracked-files=normal",
      "--ignore-submodules=all",
      "--no-renames",
      "--",
      ...snapshot.pathspecs,
    ],
    options,
  );
  const ours = excluded.map((dir) => `${path.relative(snapshot.workTree, dir).split(path.sep).join("/")}/`);
  const entries = new Set<string>();
  for (const record of status.split("\0")) {
    if (!record.startsWith("! ")) continue;
    const entry = record.slice(2);
    if (!ours.some((dir) => `${entry}/`.startsWith(dir) || entry.startsWith(dir))) entries.add(entry);
  }
  return { entries, blobs: await hashSmallFiles(snapshot, entries, signal), excluded: new Set() };
}

/** What the start commit says besides its tree: a fixed identity and time, as it is never shown. */
const START_COMMIT_TAIL =
  "author agent-run <agent-run@localhost> 0 +0000\ncommitter agent-run <agent-run@localhost> 0 +0000\n\nstart\n";

/**
 * Writes the commit of `tree` (no parent) into `gitDir`'s store and returns its id: what `git
 * commit-tree` would write, by hand, as it is one git process less on the way to the first tool
 * that may change a file (10 ms alone on a 2-core runner, 20-40 beside a run's start). SHA-1, or
 * SHA-256 in a repository of that format: the tree's id says which.
 */
export async function writeStartCommit(gitDir: string, tree: string): Promise<string> {
  const commit = looseObject("commit", Buffer.from(`tree ${tree}\n${START_COMMIT_TAIL}`), tree.length / 2);
  await writeLooseObjects(gitDir, [commit]);
  return commit.id;
}

async function hashSmallFiles(
  snapshot: WorkspaceSnapshot,
  entries: Set<string>,
  signal: AbortSignal | undefined,
): Promise<IgnoredAtStart["blobs"]> {
  const picked: Array<{ file: string; mode: string }> = [];
  let bytes = 0;
  for (const entry of entries) {
    if (picked.length >= MAX_HASHED_IGNORED_FILES) break;
    if (entry.endsWith("/") || entry.includes("\n")) continue;
    const stat = await lstat(path.join(snapshot.workTree, entry)).catch(() => undefined);
    if (!stat?.isFile() || stat.size > MAX_HASHED_IGNORED_FILE_BYTES) continue;
    if (bytes + stat.size > MAX_HASHED_IGNORED_BYTES) continue;
    bytes += stat.size;
    picked.push({ file: entry, mode: stat.mode & 0o100 ? "100755" : "100644" });
  }
  const blobs: IgnoredAtStart["blobs"] = new Map();
  if (picked.length === 0) return blobs;
  const ids = await gitOrThrow(["hash-object", "-w", "--no-filters", "--stdin-paths"], {
    cwd: snapshot.workTree,
    env: snapshot.env,
    input: `${picked.map((entry) => entry.file).join("\n")}\n`,
    ...(signal && { signal }),
  });
  const lines = ids.split("\n");
  for (const [index, entry] of picked.entries()) {
    const blob = lines[index]?.trim();
    if (blob) blobs.set(entry.file, { mode: entry.mode, blob });
  }
  return blobs;
}

/**
 * Files the user tracks although an ignore rule matches them (committed before the rule, or added
 * with -f) are part of the workspace: they go in the private index first, where later adds keep
 * them whatever the ignore rules say. The user's index is only read.
 */
export async function addTrackedIgnored(
  snapshot: WorkspaceSnapshot,
  excluded: string[],
  signal?: AbortSignal,
): Promise<void> {
  const listed = await git(
    ["ls-files", "-z", "--full-name", "--cached", "--ignored", "--exclude-standard", "--", "."],
    { cwd: snapshot.root, ...(signal && { signal }) },
  );
  if (listed.failed || listed.stdout === "") return;
  const outside = excluded.map((dir) => path.relative(snapshot.workTree, dir).split(path.sep).join("/"));
  const files: string[] = [];
  for (const file of listed.stdout.split("\0")) {
    if (file === "" || outside.some((dir) => file === dir || file.startsWith(`${dir}/`))) continue;
    const exists = await fs.lstat(path.join(snapshot.workTree, file)).then(
      () => true,
      () => false,
    );
    if (exists) files.push(`:(literal)${file}\0`);
  }
  if (files.length === 0) return;
  await gitOrThrow(["add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"], {
    cwd: snapshot.workTree,
    env: snapshot.env,
    input: files.join(""),
    ...(signal && { signal }),
  });
}

/** The entry of `ignored` covering `file` (the file itself or a directory above it), if any. */
function coveringEntry(ignored: IgnoredAtStart, file: string): string | undefined {
  if (ignored.entries.has(file)) return file;
  for (let slash = file.indexOf("/"); slash !== -1; slash = file.indexOf("/", slash + 1)) {
    const dir = file.slice(0, slash + 1);
    if (ignored.entries.has(dir)) return dir;
  }
  return undefined;
}

/**
 * Resolves the paths added to the index since the start that git ignored at the start (see the
 * module comment): amends `snapshot.tree` and the index, and adds notes. Run after `git add`.
 */
export async function reconcileUnignored(snapshot: WorkspaceSnapshot): Promise<void> {
  const { ignored } = snapshot;
  const options = { cwd: snapshot.workTree, env: snapshot.env };
  const added = await gitOrThrow(
    ["diff-index", "--cached", "--no-renames", "--name-only", "-z", "--diff-filter=A", snapshot.tree, "--"],
    options,
  );
  const byEntry = new Map<string, string[]>();
  for (const file of added.split("\0")) {
    if (file === "") continue;
    const entry = coveringEntry(ignored, file);
    if (entry === undefined) continue;
    const files = byEntry.get(entry) ?? [];
    files.push(file);
    byEntry.set(entry, files);
  }

  const join: Array<{ file: string; mode: string; blob?: string }> = [];
  const exclude: string[] = [];
  for (const [entry, files] of byEntry) {
    const hashed = ignored.blobs.get(entry);
    if (hashed) {
      join.push({ file: entry, ...hashed });
      continue;
    }
    const unchanged: typeof join = [];
    for (const file of files) {
      const stat = await lstat(path.join(snapshot.workTree, file), { bigint: true }).catch(() => undefined);
      if (!stat?.isFile() || stat.ctimeNs >= snapshot.startedNs) break;
      unchanged.push({ file, mode: stat.mode & 0o100n ? "100755" : "100644" });
    }
    if (unchanged.length === files.length) join.push(...unchanged);
    else exclude.push(entry);
  }
  // An ignored file the run deleted: a patch deleting it would publish its whole content (often a
  // .env), which no commit of the end state holds. It stays out, like every ignored file.
  const deleted = await deletedAndUnignored(snapshot);
  exclude.push(...deleted);
  if (join.length === 0 && exclude.length === 0) return;

  await hashMissing(snapshot, join);
  for (const entry of exclude) {
    ignored.excluded.add(entry);
    snapshot.notes.add(
      deleted.includes(entry)
        ? `${shown(snapshot, entry)} was ignored by git at the start and the run deleted it; patch.diff leaves it out`
        : `${shown(snapshot, entry)} was ignored by git at the start; the run un-ignored and changed it, ` +
            "so its start content is unknown and patch.diff leaves it out",
    );
  }
  if (exclude.length > 0) {
    await appendExclude(snapshot, exclude);
    await gitOrThrow(
      ["rm", "--cached", "-r", "-q", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"],
      { ...options, input: exclude.map((entry) => `:(literal)${entry}\0`).join("") },
    );
  }
  snapshot.tree = await amendTree(snapshot, join, exclude);
}

/** Hashed ignored files that are gone now and no longer ignored (which git would take for deletions). */
async function deletedAndUnignored(snapshot: WorkspaceSnapshot): Promise<string[]> {
  const gone: string[] = [];
  for (const file of snapshot.ignored.blobs.keys()) {
    if (snapshot.ignored.excluded.has(file)) continue;
    const exists = await lstat(path.join(snapshot.workTree, file)).then(
      () => true,
      () => false,
    );
    if (!exists) gone.push(file);
  }
  if (gone.length === 0) return gone;
  const result = await gitOrThrow(["check-ignore", "-z", "--stdin", "--no-index"], {
    ...readingWorkspace(snapshot),
    input: gone.map((file) => `${file}\0`).join(""),
  }).catch(() => "");
  const stillIgnored = new Set(result.split("\0"));
  return gone.filter((file) => !stillIgnored.has(file));
}

async function hashMissing(
  snapshot: WorkspaceSnapshot,
  join: Array<{ file: string; mode: string; blob?: string }>,
): Promise<void> {
  const missing = join.filter((entry) => entry.blob === undefined);
  if (missing.length === 0) return;
  const ids = await gitOrThrow(["hash-object", "-w", "--no-filters", "--stdin-paths"], {
    ...readingWorkspace(snapshot),
    input: `${missing.map((entry) => entry.file).join("\n")}\n`,
  });
  const lines = ids.split("\n");
  for (const [index, entry] of missing.entries()) entry.blob = lines[index]?.trim();
}

/** The start tree with `join` added and everything under `exclude` removed. */
async function amendTree(
  snapshot: WorkspaceSnapshot,
  join: Array<{ file: string; mode: string; blob?: string }>,
  exclude: string[],
): Promise<string> {
  const env = { ...snapshot.env, GIT_INDEX_FILE: path.join(snapshot.tempDir, "start-index") };
  const options = { cwd: snapshot.workTree, env };
  await gitOrThrow(["read-tree", snapshot.tree], options);
  if (exclude.length > 0) {
    await gitOrThrow(
      ["rm", "--cached", "-r", "-q", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"],
      { ...options, input: exclude.map((entry) => `:(literal)${entry}\0`).join("") },
    );
  }
  const lines = join
    .filter((entry) => entry.blob && !exclude.some((dir) => entry.file === dir || entry.file.startsWith(dir)))
    .map((entry) => `${entry.mode} ${entry.blob}\t${entry.file}\0`);
  if (lines.length > 0) {
    await gitOrThrow(["update-index", "--add", "-z", "--index-info"], { ...options, input: lines.join("") });
  }
  return (await gitOrThrow(["write-tree"], options)).trim();
}

async function appendExclude(snapshot: WorkspaceSnapshot, entries: string[]): Promise<void> {
  const file = path.join(snapshot.env.GIT_DIR ?? "", "info", "exclude");
  await appendFile(file, `${entries.map(anchoredPattern).join("\n")}\n`);
}

function shown(snapshot: WorkspaceSnapshot, entry: string): string {
  const relative = entry.startsWith(snapshot.prefix) ? entry.slice(snapshot.prefix.length) : entry;
  return relative === "" ? "." : relative;
}
