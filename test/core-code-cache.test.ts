/**
 * The bundle's core (dist/core, CommonJS) is loaded by src/system/core-loader.ts with a code cache
 * made when the process ends: the first run on a machine writes one per module, later runs use it,
 * a run that loads more of the core writes them again, and a cache that does not fit its source
 * (changed, corrupt, another V8) is never used and is made again. Checked through the built CLI;
 * the module semantics (strict mode, requires) directly.
 */
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { loadCore, loadedCore } from "../src/system/core-loader.ts";
import { BUILT_DIST } from "./helpers/built.ts";
import { runCli } from "./helpers/cli.ts";

const CACHE_DIR = `agent-run-${process.version}-${process.arch}`;

/** Runs the CLI twice: `file` is written by the first (it was not usable) and kept by the second. */
async function remadeAndKept(base: string, file: string, unusable: Buffer): Promise<void> {
  await version(base);
  const remade = await readFile(file);
  expect(remade.equals(unusable)).toBe(false);
  const { mtimeMs } = await stat(file);
  await version(base);
  expect((await stat(file)).mtimeMs).toBe(mtimeMs);
  expect((await readFile(file)).equals(remade)).toBe(true);
}

async function version(cacheBase: string, env: NodeJS.ProcessEnv = {}) {
  const result = await runCli(["--version"], { env: { NODE_COMPILE_CACHE: cacheBase, ...env } });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^\d+\.\d+\.\d+/);
}

/** Cache file → its bytes, for the CLI's core modules. */
async function caches(dir: string): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    found.set(name, await readFile(path.join(dir, name)));
  }
  return found;
}

describe("the core's code cache, through the built CLI", () => {
  test("the first run writes one per module it loaded; the next uses them and writes nothing", async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-"));
    const dir = path.join(base, CACHE_DIR);
    await version(base);
    const first = await caches(dir);
    expect([...first.keys()]).toContain("cli-main.cjs.cache");
    expect([...first.keys()].every((name) => name.endsWith(".cjs.cache"))).toBe(true);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const times = new Map<string, number>();
    for (const name of first.keys()) times.set(name, (await stat(path.join(dir, name))).mtimeMs);
    await version(base);
    for (const name of first.keys()) expect((await stat(path.join(dir, name))).mtimeMs).toBe(times.get(name));
    expect([...(await caches(dir)).keys()].sort()).toEqual([...first.keys()].sort());
  }, 30_000);

  test("a run that loads more of the core writes the caches again; one that loads less does not", async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-"));
    const file = path.join(base, CACHE_DIR, "cli-main.cjs.cache");
    const task = path.join(base, "task.yml");
    await writeFile(task, "model: anthropic:claude-sonnet-4-5\nprompt: hi\ntools: [read]\n");
    await version(base);
    const narrow = await stat(file);
    // validate loads the spec's modules too: the cache --version wrote lacks what they ran.
    const validated = await runCli(["validate", task], { env: { NODE_COMPILE_CACHE: base } });
    expect(validated.code, validated.stderr).toBe(0);
    const broad = await stat(file);
    expect(broad.mtimeMs).not.toBe(narrow.mtimeMs);
    await version(base);
    expect((await stat(file)).mtimeMs).toBe(broad.mtimeMs);
  }, 30_000);

  test("a cache V8 refuses, or one made for another version of its source, is made again", async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-"));
    const dir = path.join(base, CACHE_DIR);
    await version(base);
    const file = path.join(dir, "cli-main.cjs.cache");
    const good = await readFile(file);
    // Same header (the source's size and time), V8's part garbage: V8 refuses it.
    const corrupt = Buffer.concat([good.subarray(0, 16), Buffer.alloc(good.length - 16, 7)]);
    await writeFile(file, corrupt);
    await remadeAndKept(base, file, corrupt);
    // A header that names another source (another size): not even given to V8.
    const other = Buffer.from(good);
    other.writeDoubleLE(other.readDoubleLE(0) + 1, 0);
    await writeFile(file, other);
    await remadeAndKept(base, file, other);
  }, 30_000);

  test("a source changed to one of the same length runs as it is now, not as its old cache says", async () => {
    // V8 checks a cache against its source's length only: the version chunk, edited in place.
    const dist = await mkdtemp(path.join(os.tmpdir(), "agent-run-dist-"));
    await cp(BUILT_DIST, dist, { recursive: true });
    const chunks = path.join(dist, "core", "chunks");
    const chunk = (await readdir(chunks)).find((name) => name.startsWith("version-"));
    if (!chunk) throw new Error("no version chunk in the bundle");
    const base = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-"));
    const cliVersion = async () => {
      const result = await runCli(["--version"], {
        env: { NODE_COMPILE_CACHE: base },
        bin: path.join(dist, "cli.js"),
      });
      return result.stdout.trim();
    };
    const before = await cliVersion();
    expect(await cliVersion()).toBe(before);
    const source = await readFile(path.join(chunks, chunk), "utf8");
    const changed = before.replace(/\d/g, (digit) => String((Number(digit) + 1) % 10));
    await writeFile(path.join(chunks, chunk), source.replace(before, changed));
    expect(changed.length).toBe(before.length);
    expect(await cliVersion()).toBe(changed);
  }, 30_000);

  test("no cache in a folder others may write to, nor with NODE_DISABLE_COMPILE_CACHE", async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-"));
    const dir = path.join(base, CACHE_DIR);
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o777);
    await version(base);
    expect(await readdir(dir)).toEqual([]);
    // The folder it is in, too: whoever may write there may swap the cache folder for a link.
    const open = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-"));
    await chmod(open, 0o777);
    await version(open);
    expect(await readdir(path.join(open, CACHE_DIR))).toEqual([]);
    const off = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-"));
    await version(off, { NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(await readdir(off)).toEqual([]);
  }, 30_000);
});

describe("core modules load as the ES modules they were bundled from would", () => {
  test("in strict mode, each once, with relative requires and Node's built-ins", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-core-"));
    await mkdir(path.join(dir, "chunks"));
    await writeFile(
      path.join(dir, "chunks", "shared-x1.cjs"),
      "exports.count = (exports.count ?? 0) + 1;\nexports.self = (function () { return this; })();\n",
    );
    await writeFile(
      path.join(dir, "main.cjs"),
      [
        'const shared = require("./chunks/shared-x1.cjs");',
        'const again = require("./chunks/shared-x1.cjs");',
        'exports.sep = require("node:path").sep;',
        "exports.sameShared = shared === again && shared.count === 1;",
        "exports.thisInFunction = shared.self;",
        "exports.file = __filename;",
        "let threw = false;",
        "try { undeclaredName = 1; } catch (error) { threw = error instanceof ReferenceError; }",
        "exports.sloppyAssignmentThrows = threw;",
      ].join("\n"),
    );
    const loaded = (await loadCore(path.join(dir, "main.cjs"))) as Record<string, unknown>;
    expect(loaded).toMatchObject({
      sep: path.sep,
      sameShared: true,
      thisInFunction: undefined,
      file: path.join(dir, "main.cjs"),
      sloppyAssignmentThrows: true,
    });
    expect(await loadCore(path.join(dir, "main.cjs"))).toBe(loaded);
    expect(loadedCore().map((module) => path.relative(dir, module.file))).toEqual([
      "main.cjs",
      path.join("chunks", "shared-x1.cjs"),
    ]);
  });
});
