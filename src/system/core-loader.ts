/**
 * Loads the bundle's core (dist/core: CommonJS chunks, see rolldown.config.ts) with a V8 code
 * cache made at the end of the process, after the run: it holds every function the run compiled.
 * Node's compile cache is made when a module is compiled, before it runs, so it holds the top level
 * only, and each run compiled the rest again as it first called it: on a 2-core runner a one-turn
 * run then spent ~60 ms more before its first model request and ~10 ms more after its last
 * (docs/benchmarks.md, twentieth session).
 *
 * Each module is compiled with `vm.Script` (wrapped as Node wraps CommonJS, in strict mode, as the
 * ES modules it was bundled from are) and given the cache found for it; one without a cache, or
 * whose cache V8 refused (another Node, other V8 flags), gets a new one when the process exits.
 * A cache holds what the run that wrote it compiled: one written by a text-only run lacks the
 * tools' functions. So it is written again by a run that loaded more of the core's modules than
 * that run had (a run that uses tools loads more than one that answers at once): the caches settle
 * on the broadest run seen, after one more write each.
 *
 * Caches live in a folder of their own under Node's compile cache folder (`NODE_COMPILE_CACHE`,
 * else `<tmpdir>/node-compile-cache`), one per Node version and architecture; each file names its
 * source's size and modification time, so a changed source never meets an old cache (V8 checks
 * only the length). `NODE_DISABLE_COMPILE_CACHE=1` turns it off, as it does Node's.
 *
 * A code cache is code V8 runs: the folder, and the one it is in, are used only when they are this
 * user's and no one else may write to them (on a shared `/tmp`, another user could otherwise plant
 * a cache, or swap the folder for a link to one of theirs). Writing one costs
 * ~15-25 ms at the end of the first run on a machine, once per agent-run and Node version: not
 * done on a machine no later run will use (see compile-cache.ts).
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { cacheOutlivesRun } from "./compile-cache.ts";

/** What the cache did for one module loaded (for tests). */
export interface LoadedCoreModule {
  file: string;
  cache: "off" | "none" | "accepted" | "rejected";
}

/**
 * Bytes before V8's data in a cache file, float64 each: the source's size and modification time
 * (ms), which must match, then how many core modules the run that wrote it had loaded.
 */
const SOURCE_BYTES = 16;
const HEADER_BYTES = 24;
/** Cache files no run has rewritten for this long are removed when a run writes new ones: 14 days. */
const STALE_AFTER_MS = 14 * 24 * 60 * 60 * 1000;
// Node's own wrapper, on the source's first line so that line numbers stay the source's.
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) {"use strict";';
const WRAP_TAIL = "\n})";

interface Cached {
  script: vm.Script;
  cacheFile: string;
  /** The source's part of the header. */
  source: Buffer;
  /** Modules the writer of the cache in use had loaded; -1 when none was used. */
  writerLoaded: number;
}

const modules = new Map<string, { exports: unknown }>();
const loaded: LoadedCoreModule[] = [];
const cached: Cached[] = [];
let cacheDir: string | null | undefined;
let nodeRequire: NodeJS.Require | undefined;

/** dist/core, beside the bundle this module was bundled into (dist/ or dist/chunks/). */
export function coreDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.join(path.basename(here) === "chunks" ? path.dirname(here) : here, "core");
}

/** The exports of the CommonJS module `file` (and of what it requires, loaded the same way). */
export async function loadCore(file: string): Promise<unknown> {
  return requireCore(path.resolve(file));
}

/** The modules loaded so far and what their cache did. */
export function loadedCore(): readonly LoadedCoreModule[] {
  return loaded;
}

function requireCore(file: string): unknown {
  const known = modules.get(file);
  if (known) return known.exports;
  const source = fs.readFileSync(file, "utf8");
  const dir = cacheFolder();
  let entry: { cacheFile: string; source: Buffer } | undefined;
  let found: { data: Buffer; writerLoaded: number } | undefined;
  if (dir !== null) {
    const stat = fs.statSync(file);
    const source = Buffer.alloc(SOURCE_BYTES);
    source.writeDoubleLE(stat.size, 0);
    source.writeDoubleLE(stat.mtimeMs, 8);
    entry = { cacheFile: path.join(dir, `${path.basename(file)}.cache`), source };
    found = readCache(entry.cacheFile, source);
  }
  const cachedData = found?.data;
  const script = new vm.Script(WRAP_HEAD + source + WRAP_TAIL, {
    filename: file,
    ...(cachedData && { cachedData }),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const cache = !entry ? "off" : !cachedData ? "none" : script.cachedDataRejected ? "rejected" : "accepted";
  loaded.push({ file, cache });
  if (entry) {
    if (cached.length === 0) process.once("exit", saveCaches);
    const writerLoaded = cache === "accepted" && found ? found.writerLoaded : -1;
    cached.push({ script, ...entry, writerLoaded });
  }
  const module = { exports: {} as unknown };
  modules.set(file, module);
  const base = path.dirname(file);
  const require = (id: string): unknown => {
    if (id.startsWith("./") || id.startsWith("../")) return requireCore(path.resolve(base, id));
    nodeRequire ??= createRequire(import.meta.url);
    return nodeRequire(id);
  };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, require, module, file, base);
  return module.exports;
}

/** The cache folder, made if missing; null when off or not safely this user's alone. */
function cacheFolder(): string | null {
  if (cacheDir !== undefined) return cacheDir;
  cacheDir = null;
  if (process.env.NODE_DISABLE_COMPILE_CACHE || !cacheOutlivesRun()) return cacheDir;
  try {
    const base = process.env.NODE_COMPILE_CACHE || path.join(os.tmpdir(), "node-compile-cache");
    const dir = path.join(base, `agent-run-${process.version}-${process.arch}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (ownedAlone(base) && ownedAlone(dir)) cacheDir = dir;
  } catch {
    // No cache: the modules compile as they would without one.
  }
  return cacheDir;
}

/** Whether `dir` is a folder (not a link) of this user's that no one else may write to. */
function ownedAlone(dir: string): boolean {
  const stat = fs.lstatSync(dir);
  const uid = process.getuid?.();
  return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
}

/** V8's data in `file` when it was made from the source `source` names; undefined when there is none. */
function readCache(file: string, source: Buffer): { data: Buffer; writerLoaded: number } | undefined {
  try {
    const data = fs.readFileSync(file);
    if (data.length <= HEADER_BYTES || !data.subarray(0, SOURCE_BYTES).equals(source)) return undefined;
    return { data: data.subarray(HEADER_BYTES), writerLoaded: data.readDoubleLE(SOURCE_BYTES) };
  } catch {
    return undefined;
  }
}

/**
 * At exit: a cache for each module that had none it could use, or whose cache a run that loaded
 * fewer modules wrote; then old ones go. Never throws.
 */
function saveCaches(): void {
  const written = new Set<string>();
  const count = Buffer.alloc(HEADER_BYTES - SOURCE_BYTES);
  count.writeDoubleLE(loaded.length, 0);
  for (const { script, cacheFile, source, writerLoaded } of cached.splice(0)) {
    if (writerLoaded >= loaded.length) continue;
    const temp = `${cacheFile}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(temp, Buffer.concat([source, count, script.createCachedData()]), { mode: 0o600 });
      fs.renameSync(temp, cacheFile);
      written.add(path.basename(cacheFile));
    } catch {
      try {
        fs.rmSync(temp, { force: true });
      } catch {
        // An exit listener must not throw: the temp file stays.
      }
    }
  }
  if (cacheDir && written.size > 0) removeStale(cacheDir, written);
}

function removeStale(dir: string, keep: Set<string>): void {
  try {
    const now = Date.now();
    for (const name of fs.readdirSync(dir)) {
      if (keep.has(name)) continue;
      const file = path.join(dir, name);
      if (now - fs.statSync(file).mtimeMs > STALE_AFTER_MS) fs.rmSync(file, { force: true });
    }
  } catch {
    // Left for a later run.
  }
}
