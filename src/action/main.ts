/**
 * The action's entry point (action.yml `runs.main`, bundled to dist/index.js). With RUN_CHILD_FLAG
 * it is the run's own process instead, which the action starts with no secret in its environment.
 */
import { RUN_CHILD_FLAG } from "./run-protocol.ts";

if (process.argv[2] === RUN_CHILD_FLAG) {
  // The runner (spec, tools, providers) loads here, in the run's process only.
  const { runChild } = await import("./run-child.ts");
  await runChild();
} else {
  const { run } = await import("./run-action.ts");
  await run();
}
