import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** The bundles test/global-setup.ts builds from the current sources (the same build as dist/). */
export const BUILT_DIST = path.join(ROOT, "node_modules", ".cache", "agent-run-test-dist");
/** The bundled CLI (dist/cli.js's twin). */
export const BUILT_CLI = path.join(BUILT_DIST, "cli.js");
/** The bundled action entry (dist/index.js's twin). */
export const BUILT_ACTION = path.join(BUILT_DIST, "index.js");
