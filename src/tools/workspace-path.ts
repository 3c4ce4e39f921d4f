/**
 * Confining tool paths to the workspace root.
 *
 * A path is resolved against the root, then every symlink on the way is followed: the path is
 * refused when the lexical path or its real location lies outside the root (`..`, absolute paths
 * elsewhere, symlinks to files or folders outside, at any depth), when a symlink on the way dangles
 * (writing through it would create a file wherever it points), and when it names something other
 * than a regular file or a folder (devices, FIFOs, sockets). Refusals throw `WorkspacePathError`.
 * Checks happen before each use; a process racing to swap a folder for a symlink in between is
 * out of scope (the bash tool can write anywhere anyway).
 */
import type { Stats } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { AgentRunError } from "../core/errors.ts";

export type WorkspacePathErrorCode =
  | "outside"
  | "symlink-outside"
  | "dangling-symlink"
  | "special-file"
  | "not-found";

/** A path a tool was asked to use but must not; the message is written for the model. */
export class WorkspacePathError extends AgentRunError {
  declare readonly code: WorkspacePathErrorCode;
  readonly path: string;
  constructor(code: WorkspacePathErrorCode, path: string, message: string) {
    super("tool", code, message);
    this.name = "WorkspacePathError";
    this.path = path;
  }
}

export interface ResolvedPath {
  /** Absolute path inside the root, as the model named it (symlinks not followed). */
  absolute: string;
  /** Where it really is (symlinks followed); equal to `absolute` for a path that does not exist yet. */
  real: string;
  /** Path relative to the root, with forward slashes; "." for the root itself. */
  relative: string;
  /** The real location relative to the root's real location (differs from `relative` through symlinks). */
  realRelative: string;
  /** Stats of the real target, or undefined when it does not exist. */
  stats: Stats | undefined;
}

/** Resolves tool paths inside one workspace root. */
export interface Workspace {
  readonly root: string;
  /** Resolves `path` (relative to the root, or absolute inside it). Throws WorkspacePathError. */
  resolve(path: string, options?: { mustExist?: boolean }): Promise<ResolvedPath>;
  /** The root-relative form of an absolute path inside the root, with forward slashes. */
  relative(absolute: string): string;
}

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** Creates a resolver for `root` (resolved against the process cwd). */
export function createWorkspace(root: string): Workspace {
  const lexicalRoot = resolve(root);
  let realRootPromise: Promise<string> | undefined;
  const realRoot = () => {
    realRootPromise ??= realpath(lexicalRoot).catch(() => lexicalRoot);
    return realRootPromise;
  };

  const relativeOf = (absolute: string) => toPosix(relative(lexicalRoot, absolute)) || ".";

  return {
    root: lexicalRoot,
    relative: relativeOf,
    async resolve(input, options = {}) {
      const rootReal = await realRoot();
      // Models sometimes prefix paths with "@" (mention syntax); no real file starts with it here.
      const cleaned = input.startsWith("@") ? input.slice(1) : input;
      let absolute = resolve(lexicalRoot, cleaned);
      if (!isInside(lexicalRoot, absolute)) {
        // An absolute path through the root's real location (e.g. /private/tmp for /tmp) is fine.
        if (isInside(rootReal, absolute)) absolute = join(lexicalRoot, relative(rootReal, absolute));
        else {
          throw new WorkspacePathError(
            "outside",
            input,
            `Path "${input}" is outside the workspace (${lexicalRoot}); use a path inside it.`,
          );
        }
      }
      const rel = relativeOf(absolute);
      const real = await followSymlinks(rootReal, rel, input);
      let stats: Stats | undefined;
      try {
        stats = await stat(real);
      } catch {
        stats = undefined;
      }
      if (stats && !stats.isFile() && !stats.isDirectory()) {
        throw new WorkspacePathError(
          "special-file",
          input,
          `Path "${rel}" is not a regular file or folder (device, FIFO or socket); tools refuse it.`,
        );
      }
      if (!stats && options.mustExist) {
        throw new WorkspacePathError("not-found", input, `Path "${rel}" does not exist in the workspace.`);
      }
      return { absolute, real, relative: rel, realRelative: toPosix(relative(rootReal, real)) || ".", stats };
    },
  };
}

/** Walks from the root down, following each symlink, and refuses any that leads out or dangles. */
async function followSymlinks(rootReal: string, rel: string, input: string): Promise<string> {
  const parts = rel === "." ? [] : rel.split("/");
  let current = rootReal;
  for (let i = 0; i < parts.length; i++) {
    const next = join(current, parts[i]!);
    let info: Stats;
    try {
      info = await lstat(next);
    } catch {
      // The rest does not exist yet: no symlink can be on the way.
      return join(next, ...parts.slice(i + 1));
    }
    if (!info.isSymbolicLink()) {
      current = next;
      continue;
    }
    let target: string;
    try {
      target = await realpath(next);
    } catch {
      throw new WorkspacePathError(
        "dangling-symlink",
        input,
        `Path "${rel}" goes through the symlink "${parts.slice(0, i + 1).join("/")}", whose target does not exist; refused.`,
      );
    }
    if (!isInside(rootReal, target)) {
      throw new WorkspacePathError(
        "symlink-outside",
        input,
        `Path "${rel}" goes through the symlink "${parts.slice(0, i + 1).join("/")}", which leads outside the workspace (${target}); refused.`,
      );
    }
    current = target;
  }
  return current;
}
