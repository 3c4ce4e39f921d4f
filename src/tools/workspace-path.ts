/**
 * The one place that turns a path a model named into a workspace path.
 *
 * `resolveToolPath` is the lexical step every tool, the hooks' path matcher and the `.git` guard
 * share: a leading `@` (mention syntax) dropped, the path resolved against the root, an absolute
 * path through the root's real location (`/private/tmp/x` for `/tmp/x`) mapped back into it, `/`
 * separators. What it names on disk, with every symlink followed, is the file operations' job
 * (`FileOperations.lookup`, confined-fs.ts): they refuse a symlink that leads out or dangles and
 * anything that is not a regular file or folder, without ever letting the kernel follow a link.
 * `locateToolPath` does both steps in the runner's process, synchronously, for the matcher and
 * the guard.
 */
import * as fs from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { AgentRunError } from "../core/errors.ts";
import { type ConfinedFs, createConfinedFs } from "./confined-fs.ts";
import { createConfinedWalk } from "./confined-walk.ts";
import { exactBytesEdit } from "./edit-bytes.ts";
import { looksBinary } from "./file-kind.ts";

export type WorkspacePathErrorCode =
  | "outside"
  | "symlink-outside"
  | "dangling-symlink"
  | "symlink-loop"
  | "special-file"
  | "not-found"
  | "not-a-folder"
  | "is-a-folder"
  | "hardlinked"
  | "changed"
  | "io";

const CODES = new Set<string>([
  "outside",
  "symlink-outside",
  "dangling-symlink",
  "symlink-loop",
  "special-file",
  "not-found",
  "not-a-folder",
  "is-a-folder",
  "hardlinked",
  "changed",
  "io",
]);

/** A path a tool was asked to use but must not, or could not; the message is written for the model. */
export class WorkspacePathError extends AgentRunError {
  declare readonly code: WorkspacePathErrorCode;
  readonly path: string;
  constructor(code: WorkspacePathErrorCode, path: string, message: string) {
    super("tool", code, message);
    this.name = "WorkspacePathError";
    this.path = path;
  }

  /** From a `{ code, message }` failure of the file operations (an unknown code becomes "io"). */
  static from(failure: { code: string; message: string }, path: string): WorkspacePathError {
    const code = CODES.has(failure.code) ? (failure.code as WorkspacePathErrorCode) : "io";
    return new WorkspacePathError(code, path, failure.message);
  }
}

/** A tool path, lexically. */
export interface ToolPath {
  /** Relative to the root, `/` separators, "." for the root; starts with "../" when outside. */
  relative: string;
  /** Absolute, symlinks not followed. */
  absolute: string;
  /** False for `..` out of the root and absolute paths elsewhere. */
  inside: boolean;
}

const realRoots = new Map<string, string>();
function realRootOf(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    try {
      real = fs.realpathSync(root);
    } catch {
      real = root;
    }
    realRoots.set(root, real);
  }
  return real;
}

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** The lexical form of `input` for the workspace `root` (see the module comment). Never throws. */
export function resolveToolPath(root: string, input: string): ToolPath {
  const lexicalRoot = resolve(root);
  const cleaned = input.startsWith("@") ? input.slice(1) : input;
  let absolute = resolve(lexicalRoot, cleaned);
  if (!isInside(lexicalRoot, absolute)) {
    const rootReal = realRootOf(lexicalRoot);
    if (isInside(rootReal, absolute)) absolute = join(lexicalRoot, relative(rootReal, absolute));
  }
  return {
    relative: toPosix(relative(lexicalRoot, absolute)) || ".",
    absolute,
    inside: isInside(lexicalRoot, absolute),
  };
}

/** The workspace-relative form of `input`; throws WorkspacePathError("outside") when it leaves the root. */
export function insideToolPath(root: string, input: string): string {
  const path = resolveToolPath(root, input);
  if (!path.inside) {
    throw new WorkspacePathError(
      "outside",
      input,
      `Path "${input}" is outside the workspace (${resolve(root)}); use a path inside it.`,
    );
  }
  return path.relative;
}

const localFs = new Map<string, ConfinedFs>();
/** The runner's own confined file access for `root` (created once per root). */
export function localConfinedFs(root: string): ConfinedFs {
  const key = resolve(root);
  let confined = localFs.get(key);
  if (!confined) {
    confined = createConfinedFs({ fs, createConfinedWalk, looksBinary, exactBytesEdit }, key);
    localFs.set(key, confined);
  }
  return confined;
}

/**
 * The forms of a tool path that matchers check: `relative` as named, and `real` where it really
 * is (every symlink resolved, as the tools resolve it), or undefined when the path lies outside,
 * leads out, dangles or cannot be looked up (the tools refuse those anyway).
 */
export function locateToolPath(root: string, input: string): { relative: string; real: string | undefined } {
  const path = resolveToolPath(root, input);
  if (!path.inside) return { relative: path.relative, real: undefined };
  try {
    return { relative: path.relative, real: localConfinedFs(root).lookup(path.relative).path };
  } catch {
    return { relative: path.relative, real: undefined };
  }
}

export interface ResolvedPath {
  /** Absolute path inside the root, as the model named it (symlinks not followed). */
  absolute: string;
  /** Where it really is (symlinks followed). */
  real: string;
  /** Path relative to the root, with forward slashes; "." for the root itself. */
  relative: string;
  /** The real location relative to the root (differs from `relative` through symlinks). */
  realRelative: string;
  kind: "file" | "dir" | "missing";
  /** Bytes; 0 unless a file. */
  size: number;
}

/** Resolves tool paths inside one workspace root, in the runner's process. */
export interface Workspace {
  readonly root: string;
  /** Resolves `path` (relative to the root, or absolute inside it). Throws WorkspacePathError. */
  resolve(path: string, options?: { mustExist?: boolean }): Promise<ResolvedPath>;
  /** The root-relative form of an absolute path inside the root, with forward slashes. */
  relative(absolute: string): string;
}

/** Creates a resolver for `root` (resolved against the process cwd). */
export function createWorkspace(root: string): Workspace {
  const lexicalRoot = resolve(root);
  return {
    root: lexicalRoot,
    relative: (absolute) => toPosix(relative(lexicalRoot, absolute)) || ".",
    async resolve(input, options = {}) {
      const rel = insideToolPath(lexicalRoot, input);
      let info: ReturnType<ConfinedFs["lookup"]>;
      try {
        info = localConfinedFs(lexicalRoot).lookup(rel);
      } catch (error) {
        throw WorkspacePathError.from(error as { code: string; message: string }, input);
      }
      if (info.kind === "missing" && options.mustExist) {
        throw new WorkspacePathError("not-found", input, `Path "${rel}" does not exist in the workspace.`);
      }
      return {
        absolute: join(lexicalRoot, rel),
        real: info.path === "." ? lexicalRoot : join(lexicalRoot, info.path),
        relative: rel,
        realRelative: info.path,
        kind: info.kind,
        size: info.size,
      };
    },
  };
}
