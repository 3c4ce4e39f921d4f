/**
 * Bundles the action (dist/index.js, from src/action/main.ts) and the CLI (dist/cli.js, from
 * src/cli/bin.ts, whose `#!/usr/bin/env node` line is kept) for Node 24, ESM, every dependency
 * inlined: the action runs from a checkout of this repository with no node_modules. Modules
 * reached only through `import()` (the provider SDKs, the shell parser, the CLI's commands) go to
 * lazy chunks in dist/chunks/, parsed only when a run needs them.
 *
 * Both entries import nothing statically but the Node version check (src/system/node-version.ts)
 * and `import()` the rest after it: the entry files stay small and run on old Node, which then
 * gets one line and exit 2 instead of a crash inside a dependency (DESIGN §7).
 *
 * dist/ is committed and checked in CI, so the output must be the same bytes on every build:
 * content hashes only (no timestamps), no absolute paths, no source maps.
 */
import path from "node:path";
import { defineConfig } from "rolldown";

/** Stands in for Node's lazily loaded fetch globals in every bundled module (see the file). */
const FETCH_CLASSES = path.resolve(import.meta.dirname, "src/providers/fetch-classes.ts");

export default defineConfig({
  input: { index: "src/action/main.ts", cli: "src/cli/bin.ts" },
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
  output: {
    dir: "dist",
    // Chunk names carry content hashes: a stale chunk left behind would go unnoticed by `git diff`.
    cleanDir: true,
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name]-[hash].js",
    minify: true,
    // Licence headers of the bundled packages stay in the files that carry their code.
    comments: { legal: true, annotation: false, jsdoc: false },
    sourcemap: false,
    // Non-ASCII characters as escapes: a module whose every byte is ASCII becomes a one-byte string
    // in V8, one with a single `·` a two-byte string converted and copied (test/dist-ascii.test.ts).
    charset: "ascii",
  },
});
