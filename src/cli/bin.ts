#!/usr/bin/env node
/**
 * The CLI's entry (bundled to dist/cli.js; bin/agent-run.js imports it). It checks the Node
 * version before anything else is loaded: everything past the check is imported dynamically, so
 * this file stays small and parses on old Node (DESIGN §7).
 */
import { enableCompileCache } from "../system/compile-cache.ts";
import { exitWhenFlushed } from "../system/exit-now.ts";
import { nodeVersionProblem } from "../system/node-version.ts";

const problem = nodeVersionProblem();
if (problem) {
  process.stderr.write(`${problem}\n`);
  // EXIT.usage; core/errors.ts is not imported, so that nothing but this check runs first.
  process.exitCode = 2;
} else {
  enableCompileCache();
  const { main } = await import("./main.ts");
  const code = await main(process.argv.slice(2)).catch((error: unknown) => {
    // Only a bug gets here; say so plainly, keep the stack for the report, and use the
    // infrastructure code so CI retries rather than blaming the task.
    process.stderr.write(
      `agent-run: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 4; // EXIT.error
  });
  // The outputs are written: ending now skips the heap's teardown (see exit-now.ts).
  await exitWhenFlushed(code);
}
