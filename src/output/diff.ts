/**
 * The patch between two trees of a workspace snapshot: a `git apply`-able binary patch written by
 * git straight into a file (never held in memory, whatever its size), plus the changed files.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { formatDiffstat } from "./diffstat.ts";
import { gitOrThrow } from "./git.ts";
import { createPatchScanner, type SectionStats } from "./patch-scan.ts";
import { updateTree, type WorkspaceSnapshot } from "./snapshot.ts";
import type { ChangedFile, WorkspaceDiff } from "./types.ts";

export { DIFFSTAT_BAR_WIDTH, formatDiffstat } from "./diffstat.ts";

/**
 * Above this many bytes of new content the binary parts of the patch are stored, not deflated: zlib
 * runs at ~50 MB/s on incompressible data, and a 300 MB file would take longer than a CI runner
 * waits between asking a job to stop and killing it. Default: 64 MiB.
 */
export const DEFLATE_PATCH_MAX_BYTES = 64 * 1024 * 1024;

/** A patch git wrote into the snapshot's temp dir. */
export interface ComputedPatch {
  /** The start tree it goes from and the tree it goes to (`""`: the index, whose tree was not written). */
  from: string;
  to: string;
  /** git's patch, unredacted; `""` when nothing changed. Removed by `discardPatch` or with the snapshot. */
  file: string;
  /** Size of `file` in bytes. */
  bytes: number;
  /** The changed files; their line counts stay 0 until `applySectionStats`. */
  files: ChangedFile[];
  /** `diff --git` sections of each file in the patch, in order (2 for a type change). */
  sections: number[];
}

/** `computePatch`'s target for the private index as `updateIndex` left it, its tree not written. */
export const THE_INDEX = Symbol("the index");

let counter = 0;

/** The patch of a tree to itself: no file, nothing changed. */
export function emptyPatch(tree: string): ComputedPatch {
  return { from: tree, to: tree, file: "", bytes: 0, files: [], sections: [] };
}

/**
 * Writes the patch from the snapshot's start tree to `to` (a tree of `updateTree`, or THE_INDEX):
 * new, deleted, renamed (`-M`), mode-changed and binary files (`--binary`), restricted to the
 * workspace and minus the snapshot's exclusions. Throws with git's message on failure; `signal`
 * stops git.
 *
 * The list of changed files and the patch are two git processes, started together: the patch is
 * deflated unless the list shows more new content than `deflateMaxBytes`, and then it is stopped
 * and written again stored. Both read only the object store and the index, where there are cores
 * for both, so the end of a run waits for one diff, not two in a row.
 */
export async function computePatch(
  snapshot: WorkspaceSnapshot,
  to: string | typeof THE_INDEX,
  options: {
    signal?: AbortSignal;
    /** Above this many bytes of new content the patch is stored. Default: DEFLATE_PATCH_MAX_BYTES. */
    deflateMaxBytes?: number;
  } = {},
): Promise<ComputedPatch> {
  const from = snapshot.tree;
  if (to === from) return emptyPatch(from);
  const target = to === THE_INDEX ? ["--cached", from] : [from, to];
  const toTree = to === THE_INDEX ? "" : to;
  const gitOptions = { cwd: snapshot.workTree, env: snapshot.env };
  const common = ["-M", "--no-color", "--no-ext-diff", "--no-textconv"];
  if (snapshot.prefix !== "") common.push(`--relative=${snapshot.prefix}`);
  const id = `${process.pid}-${++counter}`;
  const rawFile = path.join(snapshot.tempDir, `raw-${id}`);
  const patchFile = path.join(snapshot.tempDir, `patch-${id}.diff`);
  const writePatch = (compression: string, signal: AbortSignal | undefined) =>
    gitOrThrow(
      [
        "-c",
        `core.compression=${compression}`,
        "diff",
        "--binary",
        ...common,
        `--output=${patchFile}`,
        ...target,
      ],
      { ...gitOptions, ...(signal && { signal }) },
    );
  const deflating = new AbortController();
  const deflated = writePatch(
    "1",
    options.signal ? AbortSignal.any([deflating.signal, options.signal]) : deflating.signal,
  );
  // Settled either way below; until then a failure must not count as unhandled.
  deflated.catch(() => {});
  try {
    await gitOrThrow(["diff", "--raw", "-z", "--no-abbrev", ...common, `--output=${rawFile}`, ...target], {
      ...gitOptions,
      ...(options.signal && { signal: options.signal }),
    });
    const raw = parseRaw(await fs.readFile(rawFile, "utf8"));
    await fs.rm(rawFile, { force: true });
    if (raw.files.length === 0) {
      await deflated;
      await fs.rm(patchFile, { force: true });
      return { ...emptyPatch(from), to: toTree };
    }
    if (await newBytesOver(snapshot, raw.files, options.deflateMaxBytes ?? DEFLATE_PATCH_MAX_BYTES)) {
      deflating.abort();
      await deflated.catch(() => {});
      await writePatch("0", options.signal);
    } else {
      await deflated;
    }
    const { size } = await fs.stat(patchFile);
    return { from, to: toTree, file: patchFile, bytes: size, files: raw.files, sections: raw.sections };
  } catch (error) {
    deflating.abort();
    await deflated.catch(() => {});
    await Promise.all([fs.rm(rawFile, { force: true }), fs.rm(patchFile, { force: true })]);
    throw error;
  }
}

/** Removes the patch's file. Never rejects. */
export async function discardPatch(patch: ComputedPatch): Promise<void> {
  if (patch.file !== "") await fs.rm(patch.file, { force: true }).catch(() => {});
}

/** Fills in the files' line counts from the stats of the patch's sections (see ./patch-scan.ts). */
export function applySectionStats(patch: ComputedPatch, stats: readonly SectionStats[]): void {
  let next = 0;
  for (const [index, file] of patch.files.entries()) {
    file.additions = 0;
    file.deletions = 0;
    file.binary = false;
    for (let n = patch.sections[index] ?? 1; n > 0; n--) {
      const section = stats[next++];
      if (!section) break;
      file.additions += section.additions;
      file.deletions += section.deletions;
      file.binary ||= section.binary;
    }
  }
}

/**
 * Diffs the workspace now against the snapshot's start, in memory: for tests and small workspaces
 * (the run itself streams the patch file, see ./write-patch.ts). Calling it again later diffs
 * against the same start. Throws with git's message on failure.
 */
export async function diffWorkspace(snapshot: WorkspaceSnapshot, _root?: string): Promise<WorkspaceDiff> {
  const patch = await computePatch(snapshot, await updateTree(snapshot));
  if (patch.file === "") return { patch: "", files: [], diffstat: "" };
  try {
    const bytes = await fs.readFile(patch.file);
    const scanner = createPatchScanner();
    scanner.write(bytes.toString("latin1"));
    applySectionStats(patch, scanner.end());
    return { ...decodePatch(bytes), files: patch.files, diffstat: formatDiffstat(patch.files) };
  } finally {
    await discardPatch(patch);
  }
}

/** UTF-8 when the patch is valid UTF-8; otherwise latin1, which maps every byte to one char and back. */
export function decodePatch(bytes: Buffer): Pick<WorkspaceDiff, "patch" | "patchEncoding"> {
  try {
    return { patch: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { patch: bytes.toString("latin1"), patchEncoding: "latin1" };
  }
}

interface RawDiff {
  files: ChangedFile[];
  sections: number[];
}

/** Parses `git diff --raw -z` into ChangedFile records (line counts 0). */
export function parseRaw(raw: string): RawDiff {
  const files: ChangedFile[] = [];
  const sections: number[] = [];
  const tokens = raw.split("\0");
  for (let i = 0; i < tokens.length; i++) {
    const meta = tokens[i];
    if (!meta?.startsWith(":")) continue;
    const [oldMode = "", newMode = "", , , statusField = ""] = meta.slice(1).split(" ");
    const letter = statusField.charAt(0);
    const twoPaths = letter === "R" || letter === "C";
    const oldPath = tokens[i + 1] ?? "";
    const newPath = twoPaths ? (tokens[i + 2] ?? "") : oldPath;
    i += twoPaths ? 2 : 1;
    const file: ChangedFile = {
      path: newPath,
      status: statusOf(letter),
      additions: 0,
      deletions: 0,
      binary: false,
    };
    if (twoPaths) file.oldPath = oldPath;
    if (oldMode !== newMode && oldMode !== "000000" && newMode !== "000000") {
      file.oldMode = oldMode;
      file.newMode = newMode;
    }
    files.push(file);
    // git writes a change between a file and a symlink (or a submodule) as a deletion and a creation.
    sections.push(letter === "T" ? 2 : 1);
  }
  return { files, sections };
}

/**
 * Whether the changed files (as they are on disk now: close enough to choose a compression) hold
 * more than `limit` bytes. Stops at the first files that pass it; no git process.
 */
async function newBytesOver(
  snapshot: WorkspaceSnapshot,
  files: ChangedFile[],
  limit: number,
): Promise<boolean> {
  let total = 0;
  const base = path.join(snapshot.workTree, snapshot.prefix);
  for (let i = 0; i < files.length && total <= limit; i += 256) {
    const sizes = await Promise.all(
      files
        .slice(i, i + 256)
        .filter((file) => file.status !== "deleted")
        .map((file) =>
          fs.lstat(path.join(base, file.path)).then(
            (stat) => stat.size,
            () => 0,
          ),
        ),
    );
    for (const size of sizes) total += size;
  }
  return total > limit;
}

function statusOf(letter: string): ChangedFile["status"] {
  if (letter === "A" || letter === "C") return "added";
  if (letter === "D") return "deleted";
  if (letter === "R") return "renamed";
  return "modified";
}
