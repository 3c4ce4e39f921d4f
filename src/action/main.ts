/**
 * The action's entry point (action.yml `runs.main`, bundled to dist/index.js). With RUN_CHILD_FLAG
 * it is the run's own process instead, which the action starts with no secret in its environment.
 *
 * It checks the Node version before anything else is loaded: the rest is imported dynamically, so
 * dist/index.js stays a small file that parses and runs on old Node (DESIGN §7).
 */
import { enableCompileCache } from "../system/compile-cache.ts";
import { nodeVersionProblem } from "../system/node-version.ts";

const problem = nodeVersionProblem();
if (problem) {
  process.stdout.write(`::error::${problem}\n`);
  // EXIT.usage; core/errors.ts is not imported, so that nothing but this check runs first.
  process.exitCode = 2;
} else {
  enableCompileCache();
  const { RUN_CHILD_FLAG } = await import("./run-protocol.ts");
  if (process.argv[2] === RUN_CHILD_FLAG) {
    // The runner (spec, tools, providers) loads here, in the run's process only.
    const { runChild } = await import("./run-child.ts");
    await runChild();
  } else {
    const { run } = await import("./run-action.ts");
    await run();
  }
}
