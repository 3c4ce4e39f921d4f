/**
 * Turns on Node's on-disk V8 compile cache for the modules loaded after it (the bundle's chunks):
 * a second run on the same machine skips parsing and compiling them (about half of the CLI's
 * start-up CPU). Part of the bundles' entry files, called right after the Node version check, so
 * it must parse and do nothing on old Node: a default import (a named one would fail to link on a
 * Node without the export) and an optional call.
 *
 * The cache goes where Node puts it by default (`NODE_COMPILE_CACHE`, else `<tmpdir>/node-compile-cache`),
 * and `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Children do not inherit it: it is not put in
 * the environment. It is an optimisation only: Node never throws for it, and neither does this.
 */
import nodeModule from "node:module";

export function enableCompileCache(): void {
  try {
    nodeModule.enableCompileCache?.();
  } catch {
    // A cache that cannot be used costs start-up time, nothing else.
  }
}
