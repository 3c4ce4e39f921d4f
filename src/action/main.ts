/** The action's entry point (action.yml `runs.main`, bundled to dist/index.js). */
import { run } from "./run-action.ts";

// The runner (spec, tools, providers) loads after the secrets are masked and the trigger accepted.
await run({ loadRunner: () => import("../run/index.ts") });
