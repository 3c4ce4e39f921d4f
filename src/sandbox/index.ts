export {
  bubblewrapArgs,
  bubblewrapCommand,
  isInside,
  type SandboxPolicy,
  sandboxedScript,
  shellQuote,
  type TmpfsSizes,
  visibleInSandbox,
} from "./bubblewrap.ts";
export { candidates, createPidsCgroup, type PidsCgroup } from "./cgroup.ts";
export { type CommandServer, type CommandServerOptions, createCommandServer } from "./command-server.ts";
export { type DetectSandboxOptions, detectSandbox, PROBE_TIMEOUT_MS, type SandboxSupport } from "./detect.ts";
export { SANDBOX_ENV_ALLOWLIST, sandboxEnv } from "./env-allowlist.ts";
export { createFrameReader, encodeFrame, type FrameLimits } from "./frames.ts";
export { findGitCredentials, type ScrubbedGitConfig, scrubGitConfig } from "./git-credentials.ts";
export {
  literalPrefix,
  type PreparedSandbox,
  type PrepareSandboxOptions,
  prepareSandbox,
  RUNNER_COMMAND_FILES,
  type WrappableCommand,
} from "./prepare.ts";
export { createProcessCap, launch, type ProcessCap, type ProcessCapOptions } from "./process-cap.ts";
export {
  createSandboxSession,
  type SandboxSession,
  type SandboxSessionOptions,
  SESSION_START_TIMEOUT_MS,
  type SessionCommand,
} from "./session.ts";
export { createSessionFileOperations, type SessionRequest } from "./session-files.ts";
export { type SnapshotPlaces, snapshotGitWrapper } from "./snapshot-git.ts";
