/**
 * The snapshot's private index started from a copy of the repository's own, so that its first
 * `git add` re-reads only the files whose stat data changed since the user's git last looked,
 * instead of reading and hashing every file of the work tree (50,000 committed files, 197 MB: the
 * add 1.4-1.9 s here, against 0.12-0.26 s; the whole snapshot 1.3 s against 0.46 s).
 *
 * The snapshot's blobs are a file's bytes as they are on disk (its attributes turn every
 * conversion off), while the user's index holds what their git stored: the same bytes unless a
 * conversion applied (line endings, a clean filter such as LFS's, `ident`, an encoding). So an
 * entry is taken only where none can have: never when the user's `core.autocrlf` converts, and a
 * path with a converting attribute is dropped from the copy, to be hashed from disk like a new file.
 * Entries git would not re-check from their stat data (assume-unchanged, skip-worktree,
 * intent-to-add, a merge's stages), a split or sparse index, and an index that names an excluded
 * path (the outputs folder) leave the private index empty, as before. The user's index is only
 * read.
 */
import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import { git, gitOrThrow } from "./git.ts";

/** Below this many entries hashing every file costs less than the two git calls a seed makes. */
export const SEED_MIN_ENTRIES = 1000;

/** The copy's modification time is set this much before the original's (see `seedPrivateIndex`). */
const RACY_MARGIN_S = 0.001;

const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const STAGE_MASK = 0x3000;
const OID_OFFSET = 40;

export interface SeedPlace {
  /** The repository's top level: the snapshot's work tree and the workspace both. */
  workTree: string;
  /** The user's index file (`git rev-parse --git-path index`). */
  userIndex: string;
  /** The private index to write. */
  privateIndex: string;
  /** The private git dir, index and work tree variables for git calls on the private index. */
  env: Record<string, string>;
  /** Object id length in bytes: 20 (SHA-1) or 32 (SHA-256). */
  hashBytes: number;
  /** Paths left out of the snapshot, relative to the work tree, `/`-separated. */
  excluded: string[];
}

/**
 * Writes the private index from the user's when that is sound (see the module comment) and
 * answers whether it did; on false the private index is left as it was (absent).
 */
export async function seedPrivateIndex(place: SeedPlace, signal?: AbortSignal): Promise<boolean> {
  const read = await readWithTime(place.userIndex);
  if (!read) return false;
  const { bytes, stat } = read;
  const paths = indexPaths(bytes, place.hashBytes);
  if (!paths || paths.count < SEED_MIN_ENTRIES || namesAny(paths.list, place.excluded)) return false;
  const [autocrlf, converted] = await Promise.all([
    userAutocrlf(place.workTree, signal),
    convertedPaths(place.workTree, paths.list, signal),
  ]);
  if (autocrlf || converted === undefined) return false;
  signal?.throwIfAborted();
  try {
    await fs.writeFile(place.privateIndex, bytes);
    // git re-reads an entry whose file changed in the second the index was written ("racily
    // clean"), judging by the index file's own time: the copy claims an earlier one, never a later.
    const seconds = stat.mtimeMs / 1000 - RACY_MARGIN_S;
    await fs.utimes(place.privateIndex, seconds, seconds);
    if (converted.length > 0) {
      await gitOrThrow(["update-index", "-z", "--force-remove", "--stdin"], {
        cwd: place.workTree,
        env: place.env,
        input: converted.map((file) => `${file}\0`).join(""),
        ...(signal && { signal }),
      });
    }
  } catch (error) {
    // A copy that could not be made whole is not used: the snapshot starts empty, as without one.
    await fs.rm(place.privateIndex, { force: true });
    if (signal?.aborted) throw error;
    return false;
  }
  return true;
}

/** A file's bytes and its stat data, both of the same file (git replaces an index by renaming). */
async function readWithTime(file: string): Promise<{ bytes: Buffer; stat: Stats } | undefined> {
  const handle = await fs.open(file, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const stat = await handle.stat();
    return { bytes: await handle.readFile(), stat };
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => {});
  }
}

/** An index's entries, as `seedPrivateIndex` needs them. */
export interface IndexPaths {
  count: number;
  /** Every entry's path followed by a NUL, in the index's order: check-attr's input as it is. */
  list: Buffer;
}

/**
 * The paths of an index file's entries; undefined when an entry or extension rules out seeding
 * (see the module comment) or the file is not an index git 2.x writes (versions 2-4).
 */
export function indexPaths(index: Buffer, hashBytes: number): IndexPaths | undefined {
  if (index.length < 12 + hashBytes || index.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = index.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = index.readUInt32BE(8);
  const end = index.length - hashBytes;
  const flagsOffset = OID_OFFSET + hashBytes;
  // Plain byte access: a Buffer method validates its arguments on every call, and this runs per entry.
  const bytes = new Uint8Array(index.buffer, index.byteOffset, end);
  // A version 2 or 3 path is never longer than what holds it; version 4 ones can be (the previous
  // path cut, plus more), so the list grows as they need.
  let list = Buffer.allocUnsafe(version === 4 ? end * 2 : end);
  let written = 0;
  let previousStart = 0;
  let offset = 12;
  for (let i = 0; i < count; i++) {
    if (offset + flagsOffset + 2 > end) return undefined;
    const flags = ((bytes[offset + flagsOffset] ?? 0) << 8) | (bytes[offset + flagsOffset + 1] ?? 0);
    // Extended flags (version 3 and later) are skip-worktree and intent-to-add.
    if (flags & (ASSUME_VALID | STAGE_MASK | EXTENDED)) return undefined;
    let pathStart = offset + flagsOffset + 2;
    const start = written;
    if (version === 4) {
      // The path is the previous one without its last N bytes, then the bytes up to a NUL.
      let byte = bytes[pathStart++] ?? 0;
      let strip = byte & 0x7f;
      while (byte & 0x80) {
        byte = bytes[pathStart++] ?? 0;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const nul = bytes.indexOf(0, pathStart);
      const previousLength = i === 0 ? 0 : start - 1 - previousStart;
      if (nul === -1 || strip > previousLength) return undefined;
      const kept = previousLength - strip;
      const needed = start + kept + (nul - pathStart) + 1;
      if (needed > list.length) {
        const grown = Buffer.allocUnsafe(Math.max(needed, list.length * 2));
        list.copy(grown, 0, 0, start);
        list = grown;
      }
      list.copy(list, start, previousStart, previousStart + kept);
      written = start + kept;
      written += index.copy(list, written, pathStart, nul);
      offset = nul + 1;
    } else {
      const nul = bytes.indexOf(0, pathStart);
      if (nul === -1) return undefined;
      written += index.copy(list, written, pathStart, nul);
      // Padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
      offset += Math.floor((flagsOffset + 2 + (nul - pathStart) + 8) / 8) * 8;
    }
    list[written++] = 0;
    previousStart = start;
  }
  // Extensions: a lowercase first letter marks one a reader must understand. Of those, `link`
  // (split index: the entries live in a file of the user's git dir) and `sdir` (sparse index:
  // folders as entries) cannot be copied; any other is unknown.
  while (offset + 8 <= end) {
    const first = bytes[offset] ?? 0;
    if (first >= 0x61 && first <= 0x7a) return undefined;
    offset += 8 + index.readUInt32BE(offset + 4);
  }
  if (offset !== end) return undefined;
  return { count, list: list.subarray(0, written) };
}

/** Whether any path of `list` (NUL-terminated) is one of `dirs` or lies below one. */
function namesAny(list: Buffer, dirs: string[]): boolean {
  return dirs.some((dir) => {
    const name = Buffer.from(dir);
    for (let at = list.indexOf(name); at !== -1; at = list.indexOf(name, at + 1)) {
      const after = list[at + name.length];
      if ((at === 0 || list[at - 1] === 0) && (after === 0 || after === 0x2f)) return true;
    }
    return false;
  });
}

/** Whether the user's own config converts line endings on add or checkout (`core.autocrlf`). */
async function userAutocrlf(workTree: string, signal?: AbortSignal): Promise<boolean> {
  const result = await git(["config", "--get", "core.autocrlf"], {
    cwd: workTree,
    userConfig: true,
    ...(signal && { signal }),
  });
  // Exit 1: not set anywhere.
  if (result.exitCode === 1) return false;
  if (result.failed) return true;
  return result.stdout.trim().toLowerCase() !== "false";
}

/**
 * The paths among `paths` with an attribute that converts their bytes between the work tree and
 * the object store (by the user's attribute files and config); undefined when git cannot say.
 */
async function convertedPaths(
  workTree: string,
  list: Buffer,
  signal?: AbortSignal,
): Promise<string[] | undefined> {
  const result = await git(["check-attr", "--stdin", "-z", "--all"], {
    cwd: workTree,
    userConfig: true,
    input: list,
    ...(signal && { signal }),
  });
  // A path that is not UTF-8 could not be named back to git: nothing is copied then.
  if (result.failed || result.stdout.includes("\uFFFD")) return undefined;
  const converted = new Set<string>();
  const fields = result.stdout.split("\0");
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [file, attribute, value] = [fields[i] ?? "", fields[i + 1] ?? "", fields[i + 2] ?? ""];
    if (converts(attribute, value)) converted.add(file);
  }
  return [...converted];
}

/** Whether `attribute` with `value` (as check-attr reports it) makes git change a file's bytes. */
function converts(attribute: string, value: string): boolean {
  switch (attribute) {
    case "text":
    case "crlf":
    case "eol":
    case "filter":
    case "ident":
    case "working-tree-encoding":
      return value !== "unset" && value !== "unspecified";
    default:
      return false;
  }
}
