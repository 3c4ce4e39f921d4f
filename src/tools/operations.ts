/**
 * What the built-in tools do to the machine, as one injected interface: run a process (bash) and
 * work on files (read, write, edit, ls, find, grep). The tools take it as `operations` and do not
 * know where it runs: `createLocalOperations` (the runner's process, race-safe walks) or the run's
 * sandbox session (`SandboxSession.fileOperations`, the same walks inside bubblewrap, where the
 * kernel's mounts confine them like bash). Tests pass their own.
 *
 * Paths are workspace-relative with `/` separators ("." for the root), already checked lexically
 * (`resolveToolPath`); absolute paths and `..` above the root are refused. Every implementation
 * must keep the guarantees stated below; refusals and failures reject with a `WorkspacePathError`
 * whose message is written for the model.
 */
import type { runProcess } from "../system/process.ts";

/** What a path is, once every symlink on the way (all inside the workspace) is resolved. */
export interface PathInfo {
  /** Workspace-relative path of the real location ("." for the root); for "missing", where it would be. */
  path: string;
  kind: "file" | "dir" | "missing";
  /** Bytes; 0 unless a file. */
  size: number;
  /** Hard links; 0 unless a file. */
  links: number;
}

/** One folder entry, as the folder says (symlinks are reported, never followed). */
export interface DirEntry {
  name: string;
  kind: "file" | "dir" | "symlink" | "other";
}

/** The entries of one folder (in no particular order), or why there are none. */
export type DirListing = { ok: true; entries: DirEntry[] } | { ok: false; code: string; message: string };

/** The content of one file, or why it is not given ("deferred": the call's byte budget was spent; ask again). */
export type FileContent =
  | { kind: "content"; data: Buffer }
  | { kind: "skipped"; reason: "too-big" | "binary"; size: number }
  | { kind: "deferred" }
  | { kind: "error"; code: string; message: string };

export interface ReadFilesOptions {
  /** Files larger than this many bytes are skipped ("too-big"). */
  maxFileBytes: number;
  /** Skip files whose first 8 KiB look binary (see `looksBinary`). Default: false. */
  skipBinary?: boolean;
  /**
   * Once this many bytes are read, the remaining files come back "deferred"; the first file is
   * always read. Default: no budget.
   */
  budgetBytes?: number;
}

/** One exact edit, as the edit tool's parameters give it. */
export interface ExactEdit {
  oldText: string;
  newText: string;
  replaceAll?: boolean | undefined;
}

/** What `editExact` did: the real location edited, and the changed window (LF, no BOM) for the diff. */
export interface ExactEditResult {
  path: string;
  replacements: number;
  before: string;
  after: string;
  /** Lines of the file above the window. */
  lineOffset: number;
}

/** Whether symlinks on the way are resolved (true) or refused as a change under the tool's feet (false). */
export interface FollowOption {
  /** Default: true. */
  follow?: boolean;
}

/** An open regular file of the workspace. */
export interface FileHandle {
  /** What was opened (kind "file"). */
  readonly info: PathInfo;
  /** Reads up to `length` bytes at `position` into `buffer` at `offset`; resolves the bytes read (0 at the end). */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  /** Handles opened for "edit" only: the whole content becomes `parts`, in order (strings as UTF-8). */
  replace(parts: readonly (string | Uint8Array)[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * File work confined to one workspace. Guarantees of every implementation:
 * - no byte outside the workspace is read or written, whatever renames and symlink swaps happen
 *   meanwhile: symlinks that lead out or dangle are refused, and content moves only through a
 *   descriptor checked to be a regular file inside the workspace;
 * - devices, FIFOs and sockets are refused without being opened;
 * - a file with more than one hard link is never written (`writeFile`, `open(…, "edit")`); reading
 *   it is allowed (see docs/tools.md);
 * - `follow: false` refuses any symlink on the way: callers that checked a path's real location
 *   (`lookup`) act on exactly that location.
 */
export interface FileOperations {
  /** Resolves `path`; refuses what leads out, dangles or is a special file. A missing path is kind "missing". */
  lookup(path: string): Promise<PathInfo>;
  /** Opens an existing regular file for reading, or for "edit" (read and replace). */
  open(path: string, mode: "read" | "edit", options?: FollowOption): Promise<FileHandle>;
  /** Creates or replaces a regular file with `parts`, creating missing parent folders. */
  writeFile(
    path: string,
    parts: readonly (string | Uint8Array)[],
    options?: FollowOption,
  ): Promise<{ created: boolean; path: string }>;
  /**
   * Optional: one exact edit of an existing file in one step, where the file is (for a sandbox
   * session, one request instead of an open and a replace): opened for "edit", read whole, matched
   * as bytes, rewritten through the same descriptor, as the edit tool's own exact path does
   * (`exactBytesEdit`). Resolves undefined, having written nothing, when the step is not taken: the
   * open refused, no single match (none with replaceAll), or a file or change too large for one
   * step; the caller then takes its general path. Rejects only when the rewrite failed.
   */
  editExact?(path: string, edit: ExactEdit, options?: FollowOption): Promise<ExactEditResult | undefined>;
  /** The entries of each folder, one result per path, in order. */
  list(paths: readonly string[], options?: FollowOption): Promise<DirListing[]>;
  /** The content of each file, one result per path, in order; files are read whole. */
  readFiles(paths: readonly string[], options: ReadFilesOptions & FollowOption): Promise<FileContent[]>;
}

/** Process execution of the bash tool. */
export interface BashOperations {
  /** Must honour `outputFile` (the child's stdout and stderr), which the bash tool always sets unless no file could be created. */
  run: typeof runProcess;
}

/** Everything the built-in tools do: the one `operations` option every tool takes. */
export interface ToolOperations extends BashOperations, FileOperations {}

/** The file access of the read tool. */
export type ReadOperations = Pick<FileOperations, "open">;
/** The file access of the write tool. */
export type WriteOperations = Pick<FileOperations, "lookup" | "writeFile">;
/** The file access of the edit tool. */
export type EditOperations = Pick<FileOperations, "lookup" | "open" | "editExact">;
/** The part of a file handle the read tool uses. */
export type ReadFileHandle = FileHandle;
