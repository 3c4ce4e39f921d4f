/** The run's outputs (DESIGN §5): workspace snapshot and patch, usage.json, summary.md, events.jsonl, redaction. */
export { applyPatch, checkPatch, type PatchState, unapplyFromSnapshot } from "./apply-patch.ts";
export { writeFileAtomic } from "./atomic-write.ts";
export { DIFFSTAT_BAR_WIDTH, diffWorkspace, formatDiffstat, parseChangedFiles } from "./diff.ts";
export { createEventsWriter, type EventsWriter, type EventsWriterOptions } from "./events-writer.ts";
export { codeSpan, escapeInline, fencedBlock, quoteMarkdown } from "./markdown.ts";
export {
  createRedactor,
  isCredentialName,
  MIN_SECRET_LENGTH,
  REDACTED,
  type Redactor,
  type RedactorOptions,
} from "./redact.ts";
export { redactFilesIn } from "./redact-files.ts";
export {
  disposeSnapshot,
  type SnapshotOptions,
  snapshotWorkspace,
  type WorkspaceSnapshot,
} from "./snapshot.ts";
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
export { OUTPUT_FILES, type OutputPaths, type WriteOutputsInput, writeOutputs } from "./write-outputs.ts";
