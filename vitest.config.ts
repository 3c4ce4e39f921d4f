import os from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Vitest's default leaves a core free (one worker on a 2-core CI machine), but most of a test's
    // time is its child processes and the mock's sockets, not the worker: a worker per core took
    // the suite from ~700 s to 518-546 s there (.ci/run 9.5-10 min instead of 13).
    maxWorkers: os.availableParallelism(),
  },
});
