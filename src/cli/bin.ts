#!/usr/bin/env node
import { main } from "./main.ts";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Only a bug gets here; say so plainly, keep the stack for the report, and use the
    // infrastructure code so CI retries rather than blaming the task.
    process.stderr.write(
      `agent-run: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 4;
  },
);
