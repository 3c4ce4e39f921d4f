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
 * Nor is it turned on where no later run can read it (`cacheOutlivesRun`).
 */
import nodeModule from "node:module";

export function enableCompileCache(): void {
  if (!cacheOutlivesRun()) return;
  try {
    nodeModule.enableCompileCache?.();
  } catch {
    // A cache that cannot be used costs start-up time, nothing else.
  }
}

/**
 * Whether a compile cache written by this run can serve a later one. Not on a GitHub-hosted runner
 * (GitHub's documented `RUNNER_ENVIRONMENT`): its machine is thrown away after the job, and writing
 * the caches cost every run there ~17 ms at its end, on a fresh cache folder here (a one-turn run's
 * last answer to its exit: 37 ms against 20 without), for nothing. Unless `NODE_COMPILE_CACHE`
 * names the folder: a workflow that keeps it (actions/cache) wants it written.
 */
export function cacheOutlivesRun(env: NodeJS.ProcessEnv = process.env): boolean {
  const throwaway = env.GITHUB_ACTIONS === "true" && env.RUNNER_ENVIRONMENT === "github-hosted";
  return !throwaway || Boolean(env.NODE_COMPILE_CACHE);
}
