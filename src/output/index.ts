/** The run's outputs (DESIGN §5): workspace snapshot and patch, usage.json, summary.md, events.jsonl, redaction. */
export { applyPatch, checkPatch, type PatchState, unapplyFromSnapshot } from "./apply-patch.ts";
export { removeStaleTempFiles, writeFileAtomic } from "./atomic-write.ts";
export {
  type Checkpoint,
  type Checkpoints,
  type CheckpointsOptions,
  createCheckpoints,
} from "./checkpoints.ts";
export {
  type ComputedPatch,
  computePatch,
  DEFLATE_PATCH_MAX_BYTES,
  diffWorkspace,
  discardPatch,
  emptyPatch,
  parseRaw,
  THE_INDEX,
} from "./diff.ts";
export { DIFFSTAT_BAR_WIDTH, formatDiffstat } from "./diffstat.ts";
export { createEventsWriter, type EventsWriter, type EventsWriterOptions } from "./events-writer.ts";
export type { GitCommand, GitWrap } from "./git.ts";
export { codeSpan, escapeInline, fencedBlock, quoteMarkdown } from "./markdown.ts";
export {
  createRedactor,
  isCredentialName,
  MIN_SECRET_LENGTH,
  mapStrings,
  REDACTED,
  type Redactor,
  type RedactorOptions,
} from "./redact.ts";
export { type CleanAsOf, lookForSecrets, redactFilesIn } from "./redact-files.ts";
export {
  createSecretLookWorker,
  type SecretLookWorker,
  WORKER_LOOK_MIN_BYTES,
  WORKER_WARM_BYTES,
} from "./secret-look.ts";
export {
  disposeSnapshot,
  type SnapshotOptions,
  snapshotWorkspace,
  updateIndex,
  updateTree,
  type WorkspaceSnapshot,
} from "./snapshot.ts";
export { noteSubmoduleChanges } from "./submodules.ts";
export {
  GITHUB_COMMENT_LIMIT,
  MAX_DIFFSTAT_FILES,
  MAX_LAST_MESSAGE_CHARS,
  MAX_LISTED_ITEMS,
  type RenderSummaryOptions,
  renderSummary,
} from "./summary.ts";
export type {
  BlockedCall,
  ChangedFile,
  Conclusion,
  HookFailure,
  ResumedRun,
  RunRecord,
  ToolStats,
  WorkspaceDiff,
} from "./types.ts";
export {
  costUsd,
  type RunTotals,
  runTotals,
  USAGE_FILE,
  type UsageJson,
  usageJson,
  writeUsageJson,
} from "./usage-json.ts";
export {
  OUTPUT_FILES,
  type OutputPaths,
  type RunOutputsInput,
  type RunOutputsWritten,
  type WriteOutputsInput,
  writeOutputs,
  writeRunOutputs,
} from "./write-outputs.ts";
export { type WrittenPatch, writePatch } from "./write-patch.ts";
