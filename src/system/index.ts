export {
  isSecretName,
  type ScrubbedEnv,
  type ScrubEnvOptions,
  SECRET_NAME_PATTERNS,
  scrubEnv,
} from "./env.ts";
export { createHeadTailBuffer, type HeadTailBuffer } from "./head-tail-buffer.ts";
export {
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_PROCESS_MAX_BUFFER,
  killLeftoverProcesses,
  type ProcessResult,
  type RunProcessOptions,
  runProcess,
  signalGroup,
} from "./process.ts";
export {
  countLines,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINE_CHARS,
  DEFAULT_MAX_LINES,
  formatSize,
  type HeadTailSource,
  type TruncationOptions,
  type TruncationResult,
  truncateHead,
  truncateHeadTail,
  truncateHeadTailParts,
  truncateLine,
  truncateTail,
} from "./truncate.ts";
