/**
 * Race-safe file access below one root folder: the file work of the read, write, edit, ls, find
 * and grep tools, in the runner's process (sandbox off) and inside the sandbox's exec server.
 *
 * No path is handed to the kernel in one piece. Every component is opened on its own, relative
 * to the folder descriptor opened before it (`/proc/self/fd/<dir>/<name>`, Linux's `openat` for a
 * runtime without one), with `O_NOFOLLOW|O_PATH`, and its kind read from that descriptor. A symlink
 * is never followed by the kernel: its target is read and resolved here, and the walk starts over
 * from the root with it; a target outside the root is refused, as is one that does not exist
 * (writing through it would create a file wherever it points). Content is read or written only
 * through a descriptor reopened from the walked one (so it is the same inode), after checking it is
 * a regular file (devices, FIFOs and sockets are refused without being opened), that its current
 * location (`readlink /proc/self/fd/N`) lies inside the root, and, for writing, that it has one
 * hard link (another name of the same file may lie outside the root). New files are created with
 * `O_CREAT|O_EXCL|O_NOFOLLOW`, missing parents with `mkdir` one by one, each then walked like the
 * rest. A swap at any moment makes a call fail (`changed`) or act on the file that was there; it
 * never reaches outside the root.
 *
 * Paths are root-relative with `/` separators ("." for the root), as `resolveToolPath` produces
 * them; `..` never goes above the root. Without /proc/self/fd (macOS, Windows) components are
 * checked with lstat and the final one opened with O_NOFOLLOW: the same rules, but a folder swapped
 * for a symlink between two steps is not caught there.
 *
 * The walk itself is confined-walk.ts; this file is what the tools ask for (lookup, open, write,
 * list, read a batch of files).
 *
 * SERIALISED: the exec server runs this function from its source text (`String(createConfinedFs)`),
 * so its body may use nothing but its parameters and globals (Buffer, process, Error, JSON). Types
 * are fine (they are erased); an import, a module constant or a helper outside the body is not:
 * what it needs comes in `deps`.
 */
import type * as NodeFs from "node:fs";
import type {
  createConfinedWalk,
  WalkCache,
  WalkDir,
  WalkFound,
  WalkProbe,
  WalkScope,
} from "./confined-walk.ts";
import type { exactBytesEdit } from "./edit-bytes.ts";

/** What a path is, once every symlink on the way is resolved. */
export interface ConfinedInfo {
  /** Root-relative path of the real location ("." for the root); for "missing", where it would be. */
  path: string;
  kind: "file" | "dir" | "missing";
  /** Bytes; 0 unless a file. */
  size: number;
  /** Hard links; 0 unless a file. */
  links: number;
}

/** One folder entry, as the folder says (symlinks not followed). */
export interface ConfinedEntry {
  name: string;
  kind: "file" | "dir" | "symlink" | "other";
}

/** A refusal or failure, with a message written for the model. */
export interface ConfinedFailure {
  code: string;
  message: string;
}

export type ConfinedListing = { ok: true; entries: ConfinedEntry[] } | ({ ok: false } & ConfinedFailure);

export type ConfinedRead =
  | { kind: "content"; data: Buffer }
  | { kind: "skipped"; reason: "too-big" | "binary"; size: number }
  | { kind: "deferred" }
  | ({ kind: "error" } & ConfinedFailure);

/** What `editExact` changed: where, how often, and the window around it (see `BytesEdit`). */
export interface ConfinedEdit {
  /** Root-relative real location of the file edited. */
  path: string;
  replacements: number;
  before: string;
  after: string;
  lineOffset: number;
}

export interface ConfinedEditLimits {
  /** A larger file is not edited in one step. */
  maxFileBytes: number;
  /** Nor one whose changed window (before and after, UTF-16 units) is longer. */
  maxWindowChars: number;
}

export interface ConfinedReadOptions {
  /** Files larger than this are skipped. */
  maxFileBytes: number;
  /** Skip files whose first 8 KiB look binary. */
  skipBinary: boolean;
  /** Once this many bytes are read, the remaining paths come back "deferred". */
  budgetBytes: number;
}

/** Synchronous, race-safe file operations below one root (see the module comment). */
export interface ConfinedFs {
  /** The root's real path. */
  readonly root: string;
  /** Resolves every symlink on the way; refuses what leads out, dangles or is a special file. */
  lookup(path: string): ConfinedInfo;
  /** Opens a regular file: "read", or "edit" (read-write, refused with more than one hard link). */
  open(path: string, mode: "read" | "edit", follow: boolean): { fd: number; info: ConfinedInfo };
  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  /** Replaces the whole content of a file opened for "edit". */
  replace(fd: number, parts: readonly (string | Uint8Array)[]): void;
  close(fd: number): void;
  /** Creates or replaces a regular file (missing parents created); `follow: false` refuses any symlink. */
  writeFile(
    path: string,
    parts: readonly (string | Uint8Array)[],
    follow: boolean,
  ): { created: boolean; path: string };
  /**
   * One exact edit (`exactBytesEdit`) of the regular file at `path` in one step: opened for "edit",
   * read whole, matched as bytes and rewritten through the same descriptor. Undefined, with nothing
   * written, when the step is not taken: the open refused (missing, a folder, hard links, a symlink
   * with `follow: false`, …), the file or the window over `limits`, or no single match (none, with
   * replaceAll). Throws only when the rewrite failed.
   */
  editExact(
    path: string,
    edit: { oldText: string; newText: string; replaceAll?: boolean | undefined },
    follow: boolean,
    limits: ConfinedEditLimits,
  ): ConfinedEdit | undefined;
  /** The entries of each folder, in the folder's order. */
  list(paths: readonly string[], follow: boolean): ConfinedListing[];
  /** The content of each regular file, within `options`. */
  readFiles(paths: readonly string[], follow: boolean, options: ConfinedReadOptions): ConfinedRead[];
}

export interface ConfinedFsDeps {
  fs: typeof NodeFs;
  /** confined-walk.ts `createConfinedWalk`, passed in so that it travels with this function's source. */
  createConfinedWalk: typeof createConfinedWalk;
  /** file-kind.ts `looksBinary`, likewise. */
  looksBinary: (sample: Uint8Array) => boolean;
  /** edit-bytes.ts `exactBytesEdit`, likewise. */
  exactBytesEdit: typeof exactBytesEdit;
}

/** Creates the operations for `rootPath` (an existing folder; resolved with realpath once). */
export function createConfinedFs(deps: ConfinedFsDeps, rootPath: string): ConfinedFs {
  const { fs, looksBinary } = deps;
  const C = fs.constants;
  const SLICE_CHARS = 1024 * 1024;
  const NOFOLLOW = C.O_NOFOLLOW ?? 0;
  const w = deps.createConfinedWalk({ fs }, rootPath);
  const { root, linux, walk, reopen, inside, childPath, absolute, closeAll, failure, asFailure, errno } = w;
  const { special, hardlinked, changed } = w;
  const joined = (names: readonly string[]) => (names.length === 0 ? "." : names.join("/"));
  type Dir = WalkDir;
  type Probe = WalkProbe;
  type Found = WalkFound;
  type Scope = WalkScope;
  type DirCache = WalkCache;

  const infoOf = (found: Found, input: string): ConfinedInfo => {
    const stats = found.probe?.stats;
    const path = joined(found.names);
    if (!stats) return { path, kind: "missing", size: 0, links: 0 };
    if (stats.isDirectory()) return { path, kind: "dir", size: 0, links: 0 };
    if (stats.isFile()) return { path, kind: "file", size: stats.size, links: stats.nlink };
    throw special(input);
  };

  const writeBytes = (fd: number, bytes: Uint8Array, position: number): number => {
    let offset = 0;
    while (offset < bytes.length) {
      const n = fs.writeSync(fd, bytes, offset, bytes.length - offset, position + offset);
      offset += n;
    }
    return position + offset;
  };
  const writeParts = (fd: number, parts: readonly (string | Uint8Array)[]) => {
    let position = 0;
    for (const part of parts) {
      if (typeof part !== "string") {
        position = writeBytes(fd, part, position);
        continue;
      }
      // Slice by slice: encoding a big string in one go would hold a second full copy.
      for (let start = 0; start < part.length; ) {
        let end = Math.min(part.length, start + SLICE_CHARS);
        if (end < part.length && (part.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
        position = writeBytes(fd, Buffer.from(part.slice(start, end), "utf8"), position);
        start = end;
      }
    }
  };

  const openFile = (
    input: string,
    mode: "read" | "edit",
    follow: boolean,
    scope: Scope,
    cache?: DirCache,
  ) => {
    const found = walk(input, follow, false, scope, cache);
    const info = infoOf(found, input);
    if (info.kind === "missing")
      throw failure("not-found", `Path "${input}" does not exist in the workspace.`);
    if (info.kind === "dir") throw failure("is-a-folder", `"${input}" is a folder.`);
    if (mode === "edit" && info.links > 1) throw hardlinked(input, info.links);
    const fd = reopen(found, input, mode === "edit" ? C.O_RDWR : C.O_RDONLY);
    return { fd, info };
  };

  const readWhole = (fd: number, size: number): Buffer => {
    const data = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const n = fs.readSync(fd, data, filled, size - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return filled === size ? data : data.subarray(0, filled);
  };

  const guarded = <T>(verb: string, input: string, body: (scope: Scope) => T): T => {
    const scope: Scope = [];
    try {
      return body(scope);
    } catch (error) {
      throw asFailure(error, verb, input);
    } finally {
      closeAll(scope);
    }
  };

  return {
    root,
    lookup: (input) => guarded("look up", input, (scope) => infoOf(walk(input, true, false, scope), input)),
    open: (input, mode, follow) => guarded("open", input, (scope) => openFile(input, mode, follow, scope)),
    read: (fd, buffer, offset, length, position) => fs.readSync(fd, buffer, offset, length, position),
    replace: (fd, parts) => {
      fs.ftruncateSync(fd, 0);
      writeParts(fd, parts);
    },
    close: (fd) => fs.closeSync(fd),
    writeFile: (input, parts, follow) =>
      guarded("write", input, (scope) => {
        for (let attempt = 0; attempt < 5; attempt++) {
          const found = walk(input, follow, true, scope);
          let fd: number;
          let created = false;
          if (!found.probe) {
            const parent = found.parent as Dir;
            if (linux && !inside(parent.fd))
              throw failure("outside", `"${input}" moved out of the workspace; refused.`);
            try {
              fd = fs.openSync(
                childPath(parent, found.name),
                C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW,
                0o666,
              );
            } catch (error) {
              if (errno(error) === "EEXIST") continue;
              throw error;
            }
            created = true;
            if (!inside(fd)) {
              fs.closeSync(fd);
              throw failure("outside", `"${input}" moved out of the workspace; refused.`);
            }
          } else {
            const stats = found.probe.stats;
            if (stats.isDirectory())
              throw failure("is-a-folder", `"${input}" is a folder; give a file path.`);
            if (!stats.isFile()) throw special(input);
            if (stats.nlink > 1) throw hardlinked(input, stats.nlink);
            fd = reopen(found, input, C.O_WRONLY);
          }
          try {
            if (!created) fs.ftruncateSync(fd, 0);
            writeParts(fd, parts);
          } finally {
            fs.closeSync(fd);
          }
          return { created, path: joined(found.names) };
        }
        throw changed(input);
      }),
    editExact: (input, edit, follow, limits) => {
      let opened: { fd: number; info: ConfinedInfo };
      try {
        opened = guarded("open", input, (scope) => openFile(input, "edit", follow, scope));
      } catch {
        return undefined;
      }
      const { fd, info } = opened;
      try {
        if (info.size > limits.maxFileBytes) return undefined;
        let done: ReturnType<typeof exactBytesEdit>;
        try {
          done = deps.exactBytesEdit(readWhole(fd, info.size), edit);
        } catch {
          return undefined;
        }
        if (!done || done.before.length + done.after.length > limits.maxWindowChars) return undefined;
        const { parts, replacements, before, after, lineOffset } = done;
        return guarded("write", input, () => {
          fs.ftruncateSync(fd, 0);
          writeParts(fd, parts);
          return { path: info.path, replacements, before, after, lineOffset };
        });
      } finally {
        fs.closeSync(fd);
      }
    },
    list: (paths, follow) => {
      const cache: DirCache = { dirs: new Map(), scope: [] };
      try {
        return paths.map((input) => listOne(input, follow, cache));
      } finally {
        closeAll(cache.scope);
      }
    },
    readFiles: (paths, follow, options) => {
      const cache: DirCache = { dirs: new Map(), scope: [] };
      let spent = 0;
      try {
        return paths.map((input, index): ConfinedRead => {
          if (index > 0 && spent >= options.budgetBytes) return { kind: "deferred" };
          const read = readOne(input, follow, options, cache);
          if (read.kind === "content") spent += read.data.length;
          return read;
        });
      } finally {
        closeAll(cache.scope);
      }
    },
  };

  function listOne(input: string, follow: boolean, cache: DirCache): ConfinedListing {
    try {
      return guarded("list", input, (scope): ConfinedListing => {
        const found = walk(input, follow, false, scope, cache);
        const stats = found.probe?.stats;
        if (!stats) throw failure("not-found", `Path "${input}" does not exist in the workspace.`);
        if (!stats.isDirectory() && !stats.isFile()) throw special(input);
        if (!stats.isDirectory()) throw failure("not-a-folder", `"${input}" is not a folder.`);
        const probe = found.probe as Probe;
        if (linux && !inside(probe.fd)) throw failure("outside", `"${input}" moved out of the workspace.`);
        const dirents = fs.readdirSync(linux ? `/proc/self/fd/${probe.fd}` : absolute(found.names), {
          withFileTypes: true,
        });
        const entries = dirents.map(
          (entry): ConfinedEntry => ({
            name: entry.name,
            kind: entry.isDirectory()
              ? "dir"
              : entry.isSymbolicLink()
                ? "symlink"
                : entry.isFile()
                  ? "file"
                  : "other",
          }),
        );
        return { ok: true, entries };
      });
    } catch (error) {
      const { code, message } = asFailure(error, "list", input);
      return { ok: false, code, message };
    }
  }

  function readOne(
    input: string,
    follow: boolean,
    options: ConfinedReadOptions,
    cache: DirCache,
  ): ConfinedRead {
    try {
      return guarded("read", input, (scope): ConfinedRead => {
        const { fd, info } = openFile(input, "read", follow, scope, cache);
        scope.push(fd);
        if (info.size > options.maxFileBytes) return { kind: "skipped", reason: "too-big", size: info.size };
        // A small file is read whole and sniffed from memory; a big one is sniffed first.
        if (options.skipBinary && info.size > 65536) {
          const sample = Buffer.allocUnsafe(8192);
          const n = fs.readSync(fd, sample, 0, sample.length, 0);
          if (looksBinary(sample.subarray(0, n)))
            return { kind: "skipped", reason: "binary", size: info.size };
        }
        if (info.size > 0) {
          const data = readWhole(fd, info.size);
          if (options.skipBinary && info.size <= 65536 && looksBinary(data.subarray(0, 8192)))
            return { kind: "skipped", reason: "binary", size: info.size };
          return { kind: "content", data };
        }
        // A size of 0 may be a file whose size the kernel does not know (/proc): read to its end.
        const chunks: Buffer[] = [];
        let total = 0;
        for (;;) {
          const chunk = Buffer.allocUnsafe(65536);
          const n = fs.readSync(fd, chunk, 0, chunk.length, total);
          if (n === 0) break;
          total += n;
          if (total > options.maxFileBytes) return { kind: "skipped", reason: "too-big", size: total };
          chunks.push(chunk.subarray(0, n));
        }
        return { kind: "content", data: Buffer.concat(chunks, total) };
      });
    } catch (error) {
      const { code, message } = asFailure(error, "read", input);
      return { kind: "error", code, message };
    }
  }
}
