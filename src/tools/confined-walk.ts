/**
 * The walk under confined-fs.ts: resolving a root-relative path one component at a time, never
 * letting the kernel follow a symlink (see confined-fs.ts for the rules), and reopening what it
 * found through the walked descriptor. Split from confined-fs.ts to keep each part short; the two
 * travel together (confined-fs.ts gets this as a dependency).
 *
 * SERIALISED like confined-fs.ts: the body uses nothing but its parameters and globals.
 */
import type * as NodeFs from "node:fs";

/** A folder the walk holds. */
export interface WalkDir {
  /** An O_PATH descriptor of the folder (Linux), else -1. */
  fd: number;
  /** Real components below the root. */
  names: string[];
}

/** A component as found: its O_PATH descriptor (Linux, else -1) and what it is (not followed). */
export interface WalkProbe {
  fd: number;
  stats: NodeFs.Stats;
}

/** Where a walk ended. */
export interface WalkFound {
  /** The final component's folder; undefined for the root itself. */
  parent: WalkDir | undefined;
  name: string;
  /** Undefined when the final component does not exist. */
  probe: WalkProbe | undefined;
  /** Real components below the root (for a missing path, where it would be). */
  names: string[];
}

/** Descriptors one operation opened, closed when it ends. */
export type WalkScope = number[];

/** Folders a batch (list, readFiles) already walked, by real path, and the descriptors they hold. */
export interface WalkCache {
  dirs: Map<string, WalkDir>;
  scope: WalkScope;
}

/** A refusal or failure, with a message written for the model; `confined` tells it from a system error. */
export type WalkFailure = Error & { code: string; confined: true };

export interface ConfinedWalk {
  /** The root's real path. */
  readonly root: string;
  /** Whether descriptors are walked through /proc/self/fd (Linux), or paths with lstat (elsewhere). */
  readonly linux: boolean;
  /**
   * Walks `input` from the root. `follow: false` refuses every symlink (the caller passes a real
   * path); `create` makes missing folders on the way. Throws a `WalkFailure` for a link that leads
   * out, dangles or loops.
   */
  walk(input: string, follow: boolean, create: boolean, scope: WalkScope, cache?: WalkCache): WalkFound;
  /** A read or write descriptor of the walked regular file, checked again once open. */
  reopen(found: WalkFound, input: string, flags: number): number;
  /** True when descriptor `fd` still lies inside the root. */
  inside(fd: number): boolean;
  /** The kernel path of a component (for openat-like calls). */
  childPath(dir: WalkDir, name: string): string;
  /** The absolute path of real components. */
  absolute(names: readonly string[]): string;
  closeAll(scope: WalkScope): void;
  failure(code: string, message: string): WalkFailure;
  /** A system error as a failure naming the path as the model gave it, not /proc/self/fd/… */
  asFailure(error: unknown, verb: string, input: string): WalkFailure;
  errno(error: unknown): string | undefined;
  special(input: string): WalkFailure;
  hardlinked(input: string, links: number): WalkFailure;
  changed(input: string): WalkFailure;
}

/** The walk below `rootPath` (an existing folder, resolved with realpath once). */
export function createConfinedWalk(deps: { fs: typeof NodeFs }, rootPath: string): ConfinedWalk {
  const { fs } = deps;
  const C = fs.constants;
  const linux = process.platform === "linux" && fs.existsSync("/proc/self/fd");
  const O_PATH = linux ? 0o10000000 : 0;
  const NOFOLLOW = C.O_NOFOLLOW ?? 0;
  const DIRECTORY = C.O_DIRECTORY ?? 0;
  const NONBLOCK = C.O_NONBLOCK ?? 0;
  const MAX_LINKS = 40;
  const root = fs.realpathSync(rootPath);
  type Dir = WalkDir;
  type Probe = WalkProbe;
  type Found = WalkFound;
  type Scope = WalkScope;
  type DirCache = WalkCache;
  const MAX_CACHED_DIRS = 256;

  const failure = (code: string, message: string): WalkFailure =>
    Object.assign(new Error(message), { code, confined: true as const });
  const isConfined = (error: unknown): error is WalkFailure =>
    error instanceof Error && (error as { confined?: boolean }).confined === true;
  const errno = (error: unknown): string | undefined =>
    error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  /** A system error as a failure naming the path as the model gave it, not /proc/self/fd/… */
  const asFailure = (error: unknown, verb: string, input: string): WalkFailure => {
    if (isConfined(error)) return error;
    const text = error instanceof Error ? error.message : String(error);
    const reason = text.split(",")[0] ?? text;
    return failure("io", `Cannot ${verb} "${input}": ${reason}.`);
  };
  const joined = (names: readonly string[]) => (names.length === 0 ? "." : names.join("/"));
  const absolute = (names: readonly string[]) => (names.length === 0 ? root : `${root}/${names.join("/")}`);
  const childPath = (dir: Dir, name: string) =>
    linux ? `/proc/self/fd/${dir.fd}/${name}` : `${absolute(dir.names)}/${name}`;
  const closeAll = (scope: Scope) => {
    for (const fd of scope.splice(0)) {
      try {
        fs.closeSync(fd);
      } catch {}
    }
  };

  /** True when descriptor `fd` still lies inside the root (its path now, as the kernel says). */
  const inside = (fd: number): boolean => {
    if (!linux) return true;
    const where = fs.readlinkSync(`/proc/self/fd/${fd}`);
    return where === root || where.startsWith(root === "/" ? "/" : `${root}/`);
  };

  const openRoot = (scope: Scope): Dir => {
    if (!linux) return { fd: -1, names: [] };
    const fd = fs.openSync(root, O_PATH | DIRECTORY | NOFOLLOW);
    scope.push(fd);
    if (!inside(fd)) throw failure("outside", `The workspace ${root} moved; refused.`);
    return { fd, names: [] };
  };

  const probeAt = (dir: Dir, name: string, scope: Scope): Probe | undefined => {
    try {
      if (!linux) return { fd: -1, stats: fs.lstatSync(childPath(dir, name)) };
      const fd = fs.openSync(childPath(dir, name), O_PATH | NOFOLLOW);
      scope.push(fd);
      return { fd, stats: fs.fstatSync(fd) };
    } catch (error) {
      const code = errno(error);
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw error;
    }
  };

  /** Root-relative components of an absolute symlink target, or undefined when it lies outside. */
  const belowRoot = (target: string): string[] | undefined => {
    const parts = normalise(target.split("/"), []);
    if (parts === undefined) return undefined;
    const rootParts = root === "/" ? [] : root.slice(1).split("/");
    if (rootParts.some((part, i) => parts[i] !== part)) return undefined;
    return parts.slice(rootParts.length);
  };

  /** Applies "." and ".." to `parts` on top of `base`; undefined when ".." climbs above it. */
  function normalise(parts: readonly string[], base: readonly string[]): string[] | undefined {
    const out = [...base];
    for (const part of parts) {
      if (part === "" || part === ".") continue;
      if (part === "..") {
        if (out.length === 0) return undefined;
        out.pop();
      } else out.push(part);
    }
    return out;
  }

  const walk = (input: string, follow: boolean, create: boolean, scope: Scope, cache?: DirCache): Found => {
    let comps = normalise(input.split("/"), []);
    if (comps === undefined || input.startsWith("/")) {
      throw failure("outside", `Path "${input}" is outside the workspace (${root}); use a path inside it.`);
    }
    let fromLink = 0;
    let link = "";
    for (let hops = 0; ; hops++) {
      if (hops > MAX_LINKS) throw failure("symlink-loop", `Path "${input}" goes through too many symlinks.`);
      let dir: Dir | undefined;
      let start = 0;
      for (let i = comps.length - 1; cache && i > 0 && !dir; i--) {
        dir = cache.dirs.get(comps.slice(0, i).join("/"));
        if (dir) start = i;
      }
      dir ??= openRoot(scope);
      let restarted = false;
      for (let i = start; i < comps.length && !restarted; i++) {
        const name = comps[i] as string;
        const last = i === comps.length - 1;
        let probe = probeAt(dir, name, scope);
        if (!probe && i < fromLink) {
          throw failure(
            "dangling-symlink",
            `Path "${input}" goes through the symlink "${link}", whose target does not exist; refused.`,
          );
        }
        if (!probe && !last && create) {
          try {
            fs.mkdirSync(childPath(dir, name), 0o777);
          } catch (error) {
            if (errno(error) !== "EEXIST") throw error;
          }
          probe = probeAt(dir, name, scope);
          if (!probe) throw changed(input);
        }
        if (!probe) return { parent: dir, name, probe: undefined, names: [...dir.names, ...comps.slice(i)] };
        if (probe.stats.isSymbolicLink()) {
          if (!follow) throw changed(input);
          let target: string;
          try {
            target = fs.readlinkSync(childPath(dir, name));
          } catch (error) {
            // Swapped for something else since the probe: walk again.
            if (errno(error) !== "EINVAL" && errno(error) !== "ENOENT") throw error;
            restarted = true;
            continue;
          }
          link = joined([...dir.names, name]);
          const base = target.startsWith("/") ? belowRoot(target) : normalise(target.split("/"), dir.names);
          if (base === undefined) {
            const shown = target.startsWith("/") ? target : `${absolute(dir.names)}/${target}`;
            throw failure(
              "symlink-outside",
              `Path "${input}" goes through the symlink "${link}", which leads outside the workspace (${shown}); refused.`,
            );
          }
          comps = [...base, ...comps.slice(i + 1)];
          fromLink = base.length;
          restarted = true;
        } else if (last) {
          return { parent: dir, name, probe, names: [...dir.names, name] };
        } else if (probe.stats.isDirectory()) {
          dir = { fd: probe.fd, names: [...dir.names, name] };
          if (cache && linux && cache.dirs.size < MAX_CACHED_DIRS && scope[scope.length - 1] === probe.fd) {
            // The batch keeps this folder open for the paths after this one.
            cache.scope.push(scope.pop() as number);
            cache.dirs.set(dir.names.join("/"), dir);
          }
        } else if (create) {
          throw failure(
            "not-a-folder",
            `"${joined([...dir.names, name])}" is a file, so "${input}" cannot be created below it.`,
          );
        } else {
          return { parent: dir, name, probe: undefined, names: [...dir.names, ...comps.slice(i)] };
        }
      }
      if (!restarted) {
        // The root itself.
        const stats = linux ? fs.fstatSync(dir.fd) : fs.statSync(root);
        return { parent: undefined, name: "", probe: { fd: dir.fd, stats }, names: [] };
      }
    }
  };

  const changed = (input: string) =>
    failure(
      "changed",
      `"${input}" changed while the tool was working on it (a symlink or file was swapped in); nothing was done. Try again.`,
    );

  const special = (input: string) =>
    failure(
      "special-file",
      `Path "${input}" is not a regular file or folder (device, FIFO or socket); tools refuse it.`,
    );
  const hardlinked = (input: string, links: number) =>
    failure(
      "hardlinked",
      `"${input}" has ${links} hard links; tools do not change it, since that would change the file under its other names too, which may lie outside the workspace.`,
    );

  const reopen = (found: Found, input: string, flags: number): number => {
    const probe = found.probe as Probe;
    const fd = linux
      ? fs.openSync(`/proc/self/fd/${probe.fd}`, flags)
      : fs.openSync(childPath(found.parent as Dir, found.name), flags | NOFOLLOW | NONBLOCK);
    try {
      // On Linux the descriptor's magic link reopens the very inode the probe saw, whose kind
      // cannot change: only a writer needs a fresh look (at its links). grep reads thousands of
      // files a call, one system call each less.
      if (!linux || flags !== C.O_RDONLY) {
        const now = fs.fstatSync(fd);
        if (now.ino !== probe.stats.ino || now.dev !== probe.stats.dev || !now.isFile()) {
          throw changed(input);
        }
        if (flags !== C.O_RDONLY && now.nlink > 1) throw hardlinked(input, now.nlink);
      }
      if (!inside(fd)) throw failure("outside", `"${input}" moved out of the workspace; refused.`);
      return fd;
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  };

  return {
    root,
    linux,
    walk,
    reopen,
    inside,
    childPath,
    absolute,
    closeAll,
    failure,
    asFailure,
    errno,
    special,
    hardlinked,
    changed,
  };
}
