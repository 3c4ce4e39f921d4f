/**
 * Bundles the action (dist/index.js, from src/action/main.ts) and the CLI (dist/cli.js, from
 * src/cli/bin.ts, whose `#!/usr/bin/env node` line is kept) for Node 24, every dependency
 * inlined: the action runs from a checkout of this repository with no node_modules. Modules
 * reached only through `import()` (the provider SDKs, the shell parser, the CLI's commands) go to
 * lazy chunks (dist/core/chunks/), parsed only when a run needs them.
 *
 * Both entries import nothing statically but the Node version check (src/system/node-version.ts)
 * and load the rest after it: the entry files stay small and run on old Node, which then gets one
 * line and exit 2 instead of a crash inside a dependency (DESIGN §7).
 *
 * Two builds: the entries (ES modules, dist/*.js and dist/chunks/), then the core they import once
 * the check passed (CORE: the CLI's main, the action, the action's run process) as CommonJS chunks
 * in dist/core/, which src/system/core-loader.ts compiles with a code cache made after a run (the
 * reason, measured, is there). In the entries' build, the entries' `import()` of a CORE module
 * gets a module that loads its dist/core file through that loader instead (`coreThroughLoader`).
 * A third build makes the one worker thread's file Node loads itself (dist/worker/).
 *
 * dist/ is committed and checked in CI, so the output must be the same bytes on every build:
 * content hashes only (no timestamps), no absolute paths, no source maps.
 */
import path from "node:path";
import { build, defineConfig, type OutputOptions, type Plugin, type RolldownOptions } from "rolldown";

/** Stands in for Node's lazily loaded fetch globals in every bundled module (see the file). */
const FETCH_CLASSES = path.resolve(import.meta.dirname, "src/providers/fetch-classes.ts");
const CORE_LOADER = path.resolve(import.meta.dirname, "src/system/core-loader.ts");

/** The core: its files in dist/core (`name`.cjs), their sources, and what the entries take of them. */
const CORE = [
  { name: "cli-main", source: "src/cli/main.ts", exports: ["main"] },
  { name: "run-action", source: "src/action/run-action.ts", exports: ["run"] },
  { name: "run-child", source: "src/action/run-child.ts", exports: ["runChild"] },
];
const CORE_ID = "\0agent-run-core:";

const shared: RolldownOptions = {
  platform: "node",
  // Node built-ins stay imports; everything else is bundled.
  external: [/^node:/],
  transform: {
    target: "node24",
    // The provider SDKs build a `Headers` for every request and ask `body instanceof FormData`: with
    // Node's globals each loads undici and node:tls (40-55 ms, 17 MB and a certificate thread here).
    inject: {
      Headers: [FETCH_CLASSES, "FetchHeaders"],
      Response: [FETCH_CLASSES, "FetchResponse"],
      FormData: [FETCH_CLASSES, "LazyFormData"],
    },
  },
};

const sharedOutput: OutputOptions = {
  // Chunk names carry content hashes: a stale chunk left behind would go unnoticed by `git diff`.
  cleanDir: true,
  minify: true,
  // Licence headers of the bundled packages stay in the files that carry their code.
  comments: { legal: true, annotation: false, jsdoc: false },
  sourcemap: false,
  // Non-ASCII characters as escapes: a module whose every byte is ASCII becomes a one-byte string
  // in V8, one with a single `·` a two-byte string converted and copied (test/dist-ascii.test.ts).
  charset: "ascii",
};

/**
 * In the entries' build, an `import()` of a CORE source becomes a module that loads its dist/core
 * file through the loader (which then lands in a lazy chunk, loaded after the version check too).
 */
function coreThroughLoader(): Plugin {
  const bySource = new Map(CORE.map((entry) => [path.resolve(import.meta.dirname, entry.source), entry]));
  return {
    name: "core-through-loader",
    async resolveDynamicImport(specifier, importer) {
      if (typeof specifier !== "string" || !importer) return null;
      const resolved = await this.resolve(specifier, importer);
      const entry = resolved && bySource.get(resolved.id);
      return entry ? `${CORE_ID}${entry.name}` : null;
    },
    load(id) {
      if (!id.startsWith(CORE_ID)) return null;
      const entry = CORE.find((candidate) => `${CORE_ID}${candidate.name}` === id);
      if (!entry) return null;
      return [
        'import { join } from "node:path";',
        `import { coreDir, loadCore } from ${JSON.stringify(CORE_LOADER)};`,
        `const core = await loadCore(join(coreDir(), ${JSON.stringify(`${entry.name}.cjs`)}));`,
        ...entry.exports.map((name) => `export const ${name} = core.${name};`),
      ].join("\n");
    },
  };
}

const builds: RolldownOptions[] = [
  {
    ...shared,
    input: { index: "src/action/main.ts", cli: "src/cli/bin.ts" },
    plugins: [coreThroughLoader()],
    output: {
      ...sharedOutput,
      dir: "dist",
      format: "esm",
      entryFileNames: "[name].js",
      chunkFileNames: "chunks/[name]-[hash].js",
    },
  },
  {
    ...shared,
    input: Object.fromEntries(CORE.map((entry) => [entry.name, entry.source])),
    output: {
      ...sharedOutput,
      dir: "dist/core",
      format: "cjs",
      entryFileNames: "[name].cjs",
      chunkFileNames: "chunks/[name]-[hash].cjs",
    },
  },
  {
    // The worker thread that looks for secrets in big saved outputs (src/output/secret-look.ts):
    // one file, its modules inlined, so that the core's chunks are cut as they were without it.
    ...shared,
    input: { "secret-look": "src/output/secret-look-worker.ts" },
    output: {
      ...sharedOutput,
      dir: "dist/worker",
      format: "cjs",
      entryFileNames: "[name].cjs",
    },
  },
];

export default defineConfig(builds);

/**
 * The builds into `dir` instead of dist/ (the entries there, the core in `dir`/core, the worker in
 * `dir`/worker), as the tests and the bench make them from the working tree.
 */
export async function buildInto(dir: string, options: { logLevel?: "silent" } = {}): Promise<void> {
  for (const config of builds) {
    const output = config.output as OutputOptions;
    await build({
      ...config,
      ...options,
      cwd: import.meta.dirname,
      output: { ...output, dir: path.join(dir, path.relative("dist", output.dir ?? "dist")) },
    });
  }
}
