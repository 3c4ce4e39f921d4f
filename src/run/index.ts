export { ALWAYS_PROTECTED, buildTools, caseInsensitiveGlob, protectedPaths } from "./build-tools.ts";
export { type CompactRunEvent, compactEvent } from "./compact-event.ts";
export {
  type CompactionEvent,
  type Compactor,
  type CompactorOptions,
  createCompactor,
  DEFAULT_COMPACTION_TARGET,
  DEFAULT_COMPACTION_THRESHOLD,
} from "./compaction/compactor.ts";
export { PR_DIFF_FILE, type RunPullRequest } from "./pull-request.ts";
export { RecordCollector } from "./record.ts";
export {
  REVIEW_FILE,
  REVIEW_TOOL,
  type ReviewComment,
  type ReviewResult,
  type ReviewTarget,
} from "./review-tool.ts";
export { runTask } from "./run-task.ts";
export { agentEnv, type RunSandbox, setupSandbox } from "./sandbox-setup.ts";
export { shortArgs } from "./short-args.ts";
export { defaultSystemPrompt } from "./system-prompt.ts";
export {
  EXIT,
  type RunEvent,
  type RunLifecycleEvent,
  type RunResult,
  RunSetupError,
  type RunSetupErrorCode,
  type RunTaskOptions,
} from "./types.ts";
export {
  escapeWorkflowCommandText,
  looksLikeWorkflowCommand,
  stopCommandsBlock,
} from "./workflow-commands.ts";
