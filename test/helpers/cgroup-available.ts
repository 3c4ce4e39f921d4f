import { createPidsCgroup } from "../../src/sandbox/cgroup.ts";

/**
 * Why this machine does not let the runner make a pids cgroup (root, or a delegated subtree), or
 * undefined where it does. Where it cannot, the cgroup tests skip; AGENT_RUN_REQUIRE_CGROUP=1 (set
 * by .ci/run when it runs as root) makes that a failure instead.
 */
export const CGROUP_REASON = await (async () => {
  const made = await createPidsCgroup(10);
  if ("cgroup" in made) {
    await made.cgroup.remove();
    return undefined;
  }
  if (process.env.AGENT_RUN_REQUIRE_CGROUP === "1") {
    throw new Error(`AGENT_RUN_REQUIRE_CGROUP=1 but no pids cgroup can be made here: ${made.reason}`);
  }
  return made.reason;
})();

/** For `describe.skipIf` / `test.skipIf`. */
export const NO_CGROUP = CGROUP_REASON !== undefined;
