/**
 * The agent-run library: the agent core, its built-in tools, the providers, and the runner that
 * the CLI and the action use (`runTask`).
 */
// The one pure function of action/ that the library offers: event text reduced before a model reads it.
export { sanitizeUntrustedText } from "./action/untrusted-text.ts";
export * from "./core/index.ts";
export type { Conclusion, RunRecord, WorkspaceDiff } from "./output/index.ts";
export {
  createProvider,
  createProviderRouter,
  createRecorder,
  createReplayProvider,
  loadModelCatalog,
  loadReplayFile,
  type ModelDeprecation,
  type ModelInfo,
  modelInfo,
  modelLabel,
  ProviderConfigError,
  type ProviderConfigErrorCode,
  type ProviderDeps,
  parseModelRef,
  priceFor,
  type ReplaySession,
} from "./providers/index.ts";
export { createGithubRenderer, createTextRenderer } from "./render/index.ts";
export {
  type CompactionEvent,
  type Compactor,
  type CompactorOptions,
  type CompactRunEvent,
  createCompactor,
  escapeWorkflowCommandText,
  type RunEvent,
  type RunResult,
  RunSetupError,
  type RunTaskOptions,
  runTask,
} from "./run/index.ts";
export { detectSandbox, prepareSandbox, type SandboxPolicy, type SandboxSupport } from "./sandbox/index.ts";
export {
  formatSpecProblems,
  type LoadedTask,
  type LoadTaskOptions,
  loadTask,
  SpecError,
  type SpecProblem,
  type TaskSpec,
  taskJsonSchema,
} from "./spec/index.ts";
export * from "./tools/index.ts";
export { VERSION } from "./version.ts";
