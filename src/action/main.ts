/**
 * The action's entry point (action.yml `runs.main`, bundled to dist/index.js). It exports `run()`,
 * which runs the action with its default dependencies, and calls it itself only when it is the main
 * module (`node dist/index.js`, as the Actions runner starts it): a tool that imports the entry and
 * calls `run()` (`@github/local-action`, see docs/action.md) gets no second run. Started with
 * RUN_CHILD_FLAG it is the run's own process instead, which the action starts with no secret in
 * its environment.
 *
 * It checks the Node version before anything else is loaded: the rest is imported dynamically, so
 * dist/index.js stays a small file that parses and runs on old Node (DESIGN §7).
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { enableCompileCache } from "../system/compile-cache.ts";
import { nodeVersionProblem } from "../system/node-version.ts";

/** This file: the script the run's own process starts from, whoever imported it. */
const ENTRY = fileURLToPath(import.meta.url);

/**
 * Runs the action to completion (inputs from `INPUT_*`, the event from `GITHUB_*`). Never throws;
 * sets `process.exitCode` to the runner's exit code (2 on a Node older than 22.12).
 */
export async function run(): Promise<void> {
  if (refuseOldNode()) return;
  enableCompileCache();
  await start();
}

/** The action itself, once the Node version is known to be good. */
async function start(): Promise<void> {
  const action = await import("./run-action.ts");
  await action.run({ entry: ENTRY });
}

function refuseOldNode(): boolean {
  const problem = nodeVersionProblem();
  if (!problem) return false;
  process.stdout.write(`::error::${problem}\n`);
  // EXIT.usage; core/errors.ts is not imported, so that nothing but this check runs first.
  process.exitCode = 2;
  return true;
}

/** Whether Node was started on this file (symlinks resolved, as Node resolves the main module). */
function isMainModule(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === ENTRY;
  } catch {
    return false;
  }
}

if (isMainModule() && !refuseOldNode()) {
  enableCompileCache();
  const { RUN_CHILD_FLAG } = await import("./run-protocol.ts");
  if (process.argv[2] === RUN_CHILD_FLAG) {
    // The runner (spec, tools, providers) loads here, in the run's process only.
    const { runChild } = await import("./run-child.ts");
    await runChild();
  } else {
    await start();
    // Done: ending now skips the heap's teardown (see system/exit-now.ts).
    const { exitWhenFlushed } = await import("../system/exit-now.ts");
    const code = Number(process.exitCode ?? 0);
    await exitWhenFlushed(Number.isInteger(code) ? code : 1);
  }
}
