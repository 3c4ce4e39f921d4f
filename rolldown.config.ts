/**
 * Bundles the action (dist/index.js, from src/action/main.ts) and the CLI (dist/cli.js, from
 * src/cli/main.ts) for Node 24, ESM, every dependency inlined: the action runs from a checkout of
 * this repository with no node_modules. Code reached only through `import()` (the provider SDKs)
 * goes to lazy chunks in dist/chunks/, so a run that never calls a provider never parses its SDK.
 *
 * dist/ is committed and checked in CI, so the output must be the same bytes on every build:
 * content hashes only (no timestamps), no absolute paths, no source maps.
 */
import { defineConfig } from "rolldown";

export default defineConfig({
  input: { index: "src/action/main.ts", cli: "src/cli/main.ts" },
  platform: "node",
  // Node built-ins stay imports; everything else is bundled.
  external: [/^node:/],
  transform: { target: "node24" },
  output: {
    dir: "dist",
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name]-[hash].js",
    banner: (chunk) => (chunk.isEntry && chunk.name === "cli" ? "#!/usr/bin/env node" : ""),
    minify: true,
    legalComments: "inline",
    sourcemap: false,
  },
});
