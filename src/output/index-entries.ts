/**
 * What of a git index file makes its tree: each entry's mode, object id, stage and path, in the
 * index's order, hashed. Two indexes with the same digest write the same tree. The rest of the
 * file is left out: the stat data and the cache-tree extension, which git rewrites without
 * changing an entry (a file changed in the same second as the index was written is "racily
 * clean": the next `git add` reads it again and writes the index anew, most times).
 *
 * Index format versions 2 and 3 (what git writes unless told otherwise; the snapshot's git is
 * isolated from any config that would). Version 4, an entry with extended flags (intent-to-add,
 * skip-worktree: entries a tree may leave out) or anything malformed gives undefined: no digest,
 * so no tree is named from it.
 */
import { createHash } from "node:crypto";
import { type LooseObject, looseObject } from "./loose-objects.ts";

/** Offsets in an entry: mode after ctime, mtime, dev and ino; the object id after the stat data. */
const MODE_OFFSET = 24;
const OID_OFFSET = 40;
const EXTENDED_FLAG = 0x4000;

/**
 * Walks the entries of a version 2 or 3 index: `visit` gets each one's offset, the offset of its
 * flags, its flags, and where its path starts and ends (the NUL). Answers the bytes (up to the
 * checksum) and the offset past the last entry; undefined for version 4, an entry with extended
 * flags (intent-to-add, skip-worktree: entries a tree may leave out) or anything malformed.
 */
function walkEntries(
  index: Buffer,
  hashBytes: number,
  visit: (offset: number, flagsAt: number, flags: number, pathStart: number, nul: number) => void,
): { bytes: Uint8Array; after: number } | undefined {
  if (index.length < 12 + hashBytes || index.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = index.readUInt32BE(4);
  if (version !== 2 && version !== 3) return undefined;
  const count = index.readUInt32BE(8);
  const end = index.length - hashBytes;
  const fixed = OID_OFFSET + hashBytes + 2;
  // Typed-array builtins and plain byte access: Buffer's own methods validate their arguments on
  // every call, and this loop runs once per entry, often before V8 has optimised it.
  const bytes = new Uint8Array(index.buffer, index.byteOffset, end);
  let offset = 12;
  for (let i = 0; i < count; i++) {
    if (offset + fixed > end) return undefined;
    const flagsAt = offset + OID_OFFSET + hashBytes;
    const flags = ((bytes[flagsAt] ?? 0) << 8) | (bytes[flagsAt + 1] ?? 0);
    if (flags & EXTENDED_FLAG) return undefined;
    const pathStart = offset + fixed;
    const nul = bytes.indexOf(0, pathStart);
    if (nul === -1) return undefined;
    visit(offset, flagsAt, flags, pathStart, nul);
    // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes; the path ends at the first.
    offset += Math.floor((fixed + (nul - pathStart) + 8) / 8) * 8;
  }
  return offset > end ? undefined : { bytes, after: offset };
}

/**
 * The digest of `index`'s entries; `hashBytes`: the repository's object id length (20, or 32 for
 * SHA-256). Overwrites the rest of each entry in `index` with zeros (a copy of a 20,000-entry
 * index costs more than the rest: fresh pages).
 */
export function indexEntriesDigest(index: Buffer, hashBytes: number): string | undefined {
  const view = new Uint8Array(index.buffer, index.byteOffset, index.length);
  const walked = walkEntries(index, hashBytes, (offset, flagsAt, flags) => {
    view.fill(0, offset, offset + MODE_OFFSET);
    view.fill(0, offset + MODE_OFFSET + 4, offset + OID_OFFSET);
    view[flagsAt] = (flags >> 12) & 3;
    view[flagsAt + 1] = 0;
  });
  if (!walked) return undefined;
  return createHash("sha256")
    .update(`${hashBytes}:`)
    .update(walked.bytes.subarray(0, walked.after))
    .digest("hex");
}

const GITLINK_MODE = 0o160000;

/**
 * The paths of `index`'s gitlinks (submodules, nested repositories), in the index's order, as
 * `git ls-files -s` would name them; undefined for what `indexEntriesDigest` does not read
 * (version 4, extended flags, anything malformed). Only reads `index`.
 */
export function gitlinkPaths(index: Buffer, hashBytes: number): string[] | undefined {
  const paths: string[] = [];
  const walked = walkEntries(index, hashBytes, (offset, _flagsAt, _flags, pathStart, nul) => {
    if (index.readUInt32BE(offset + MODE_OFFSET) === GITLINK_MODE)
      paths.push(index.toString("utf8", pathStart, nul));
  });
  return walked ? paths : undefined;
}

/** The most entries `treeObjectsOf` builds the trees of; past it, git's own write-tree is as quick. */
export const OWN_TREES_MAX_ENTRIES = 2000;

/**
 * The tree objects `index` describes, the root's last: what `git write-tree` writes for it. Each
 * directory's entries in the index's order (which is git's tree order: a directory sorts as its
 * name and a "/"), each as "<octal mode> <name>\0<raw id>", a directory's mode "40000". Undefined
 * for what `walkEntries` does not read, an entry at a merge stage (write-tree refuses those), or
 * more than OWN_TREES_MAX_ENTRIES entries. Only reads `index`.
 */
export function treeObjectsOf(index: Buffer, hashBytes: number): LooseObject[] | undefined {
  if (index.length >= 12 && index.readUInt32BE(8) > OWN_TREES_MAX_ENTRIES) return undefined;
  const trees: LooseObject[] = [];
  // The directories open along the current path, the root first: each one's name and entries.
  const open: Array<{ name: string; entries: Buffer[] }> = [{ name: "", entries: [] }];
  const entryOf = (mode: string, name: string, id: Uint8Array) =>
    Buffer.concat([Buffer.from(`${mode} ${name}\0`, "latin1"), id]);
  const closeOne = () => {
    const dir = open.pop() as { name: string; entries: Buffer[] };
    const tree = looseObject("tree", Buffer.concat(dir.entries), hashBytes);
    trees.push(tree);
    open.at(-1)?.entries.push(entryOf("40000", dir.name, Buffer.from(tree.id, "hex")));
  };
  let staged = false;
  const walked = walkEntries(index, hashBytes, (offset, _flagsAt, flags, pathStart, nul) => {
    if ((flags >> 12) & 3) staged = true;
    // Bytes as latin1 characters: a name is written back byte for byte, whatever its encoding.
    const parts = index.toString("latin1", pathStart, nul).split("/");
    let shared = 0;
    while (shared < parts.length - 1 && shared + 1 < open.length && open[shared + 1]?.name === parts[shared])
      shared++;
    while (open.length > shared + 1) closeOne();
    for (let depth = shared; depth < parts.length - 1; depth++)
      open.push({ name: parts[depth] as string, entries: [] });
    const mode = index.readUInt32BE(offset + MODE_OFFSET).toString(8);
    const id = index.subarray(offset + OID_OFFSET, offset + OID_OFFSET + hashBytes);
    open.at(-1)?.entries.push(entryOf(mode, parts.at(-1) as string, id));
  });
  if (!walked || staged) return undefined;
  while (open.length > 0) closeOne();
  return trees;
}
