// The system helpers the tools are built on, offered with them as they always were.
export * from "../system/index.ts";
export {
  type BashExecution,
  type BashPrepare,
  type BashPrepareContext,
  type BashToolDetails,
  type BashToolInput,
  type BashToolOptions,
  bashParameters,
  createBashTool,
  DEFAULT_BASH_TIMEOUT_MS,
} from "./bash.ts";
export {
  createEditTool,
  type EditItem,
  type EditToolDetails,
  type EditToolInput,
  type EditToolOptions,
  editParameters,
} from "./edit.ts";
export { diffEdit, type EditDiff } from "./edit-diff.ts";
export { looksBinary } from "./file-kind.ts";
export {
  createFindTool,
  type FindToolDetails,
  type FindToolInput,
  type FindToolOptions,
  findParameters,
} from "./find.ts";
export {
  createGrepTool,
  type GrepToolDetails,
  type GrepToolInput,
  type GrepToolOptions,
  grepParameters,
} from "./grep.ts";
export { createLocalFileOperations, createLocalOperations } from "./local-operations.ts";
export {
  createLsTool,
  type LsToolDetails,
  type LsToolInput,
  type LsToolOptions,
  lsParameters,
} from "./ls.ts";
export type {
  BashOperations,
  DirEntry,
  DirListing,
  EditOperations,
  FileContent,
  FileHandle,
  FileOperations,
  FollowOption,
  PathInfo,
  ReadFileHandle,
  ReadFilesOptions,
  ReadOperations,
  ToolOperations,
  WriteOperations,
} from "./operations.ts";
export {
  createOutputGuard,
  type GuardedOutput,
  OUTPUT_GUARD_INTERVAL_MS,
  type OutputGuard,
  type OutputGuardOptions,
  type OutputStop,
} from "./output-guard.ts";
export {
  type CommandPolicy,
  type CommandVerdict,
  checkCommand,
  globMatch,
  type PolicyContext,
  preloadCommandPolicy,
} from "./policy/index.ts";
export { compileProtectedPaths } from "./protected-paths.ts";
export {
  createReadTool,
  type ReadImage,
  type ReadImageProcessor,
  type ReadToolDetails,
  type ReadToolInput,
  type ReadToolOptions,
  readParameters,
} from "./read.ts";
export { warmLineMatcher } from "./regex-worker.ts";
export {
  createWorkspace,
  insideToolPath,
  locateToolPath,
  type ResolvedPath,
  resolveToolPath,
  type ToolPath,
  type Workspace,
  WorkspacePathError,
  type WorkspacePathErrorCode,
} from "./workspace-path.ts";
export {
  createWriteTool,
  type WriteToolDetails,
  type WriteToolInput,
  type WriteToolOptions,
  writeParameters,
} from "./write.ts";
