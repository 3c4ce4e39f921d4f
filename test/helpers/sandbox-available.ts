import { spawnSync } from "node:child_process";

/**
 * Whether bubblewrap can start a sandbox on this machine. Tests that attack the sandbox need it;
 * without it they are skipped (a fresh machine may not have it: `apt-get install -y bubblewrap`),
 * unless AGENT_RUN_REQUIRE_SANDBOX=1 (set by .ci/run, which installs it), where a missing sandbox
 * fails the suite instead of quietly skipping its attacks.
 */
export const SANDBOX_AVAILABLE = (() => {
  const probe = spawnSync(
    process.env.AGENT_RUN_BWRAP || "bwrap",
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "true"],
    { stdio: "ignore", timeout: 10_000 },
  );
  const ok = probe.status === 0;
  if (!ok && process.env.AGENT_RUN_REQUIRE_SANDBOX === "1") {
    throw new Error("AGENT_RUN_REQUIRE_SANDBOX=1 but bubblewrap cannot start a sandbox here");
  }
  return ok;
})();

/** For `describe.skipIf` / `test.skipIf`. */
export const NO_SANDBOX = !SANDBOX_AVAILABLE;
