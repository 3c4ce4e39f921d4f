/**
 * The tools' operations in the runner's own process: `runProcess` for bash, and the race-safe
 * confined file access (confined-fs.ts) for the file tools. What the tools use when no sandbox
 * session gives them its operations (sandbox off, or a task that runs no command).
 *
 * The file work is synchronous system calls, each short (a walk, one read of at most the caller's
 * buffer, a batch the caller keeps small), so a tool call never holds the event loop for long.
 */
import { runProcess } from "../system/process.ts";
import type { ConfinedFs } from "./confined-fs.ts";
import type { FileHandle, FileOperations, PathInfo, ToolOperations } from "./operations.ts";
import { localConfinedFs, WorkspacePathError } from "./workspace-path.ts";

/** The largest file `editExact` reads in one call: 4 MiB. */
const ONE_STEP_EDIT_BYTES = 4 * 1024 * 1024;

/** Local operations for the workspace `root` (an existing folder). */
export function createLocalOperations(root: string): ToolOperations {
  return { run: runProcess, ...createLocalFileOperations(root) };
}

/** The file half of `createLocalOperations`. The root is resolved on first use. */
export function createLocalFileOperations(root: string): FileOperations {
  const confined = (): ConfinedFs => localConfinedFs(root);
  const attempt = <T>(path: string, body: () => T): Promise<T> => {
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(asWorkspaceError(error, path));
    }
  };
  return {
    lookup: (path) => attempt(path, () => confined().lookup(path)),
    open: (path, mode, options = {}) =>
      attempt(path, () => {
        const fs = confined();
        const { fd, info } = fs.open(path, mode, options.follow ?? true);
        return handleOf(fs, fd, info, path);
      }),
    writeFile: (path, parts, options = {}) =>
      attempt(path, () => confined().writeFile(path, parts, options.follow ?? true)),
    // A file read in one call: as large as one of the general path's reads (edit.ts), so a call
    // stays short; a larger one is read by the general path a piece at a time.
    editExact: (path, edit, options = {}) =>
      attempt(path, () =>
        confined().editExact(path, edit, options.follow ?? true, {
          maxFileBytes: ONE_STEP_EDIT_BYTES,
          maxWindowChars: Number.POSITIVE_INFINITY,
        }),
      ),
    list: (paths, options = {}) =>
      attempt(paths[0] ?? ".", () => confined().list(paths, options.follow ?? true)),
    readFiles: (paths, options) =>
      attempt(paths[0] ?? ".", () =>
        confined().readFiles(paths, options.follow ?? true, {
          maxFileBytes: options.maxFileBytes,
          skipBinary: options.skipBinary ?? false,
          budgetBytes: options.budgetBytes ?? Number.POSITIVE_INFINITY,
        }),
      ),
  };
}

function handleOf(fs: ConfinedFs, fd: number, info: PathInfo, path: string): FileHandle {
  let open = true;
  const use = <T>(body: () => T): Promise<T> => {
    if (!open) return Promise.reject(new WorkspacePathError("io", path, `"${path}" is already closed.`));
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(asWorkspaceError(error, path));
    }
  };
  return {
    info,
    read: (buffer, offset, length, position) => use(() => fs.read(fd, buffer, offset, length, position)),
    replace: (parts) => use(() => fs.replace(fd, parts)),
    close: () => {
      if (!open) return Promise.resolve();
      open = false;
      try {
        fs.close(fd);
      } catch {}
      return Promise.resolve();
    },
  };
}

/** A confined-fs failure or a system error as a WorkspacePathError. */
function asWorkspaceError(error: unknown, path: string): WorkspacePathError {
  if (error instanceof WorkspacePathError) return error;
  if (error instanceof Error && typeof (error as { code?: unknown }).code === "string") {
    const failure = error as Error & { code: string; confined?: boolean };
    if (failure.confined) return WorkspacePathError.from(failure, path);
    return new WorkspacePathError("io", path, `Cannot access "${path}": ${failure.message.split(",")[0]}.`);
  }
  return new WorkspacePathError("io", path, `Cannot access "${path}": ${String(error)}.`);
}
