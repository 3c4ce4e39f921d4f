export { Agent, type AgentOptions, type AgentState } from "./agent.ts";
export type { LoopConfig, LoopState } from "./agent-loop.ts";
export { CUT_OFF_MESSAGE, MAX_CUT_OFF_CONTINUES } from "./agent-loop.ts";
export {
  AgentRunError,
  type AgentRunErrorOptions,
  type ErrorKind,
  type ErrorLocation,
  EXIT,
  type ExitCode,
  errorText,
  exitCodeOf,
  isAgentRunError,
} from "./errors.ts";
export type {
  AgentEvent,
  AgentEventListener,
  AgentRunOutcome,
  AgentStopReason,
  HookName,
  HookPoint,
  NoticeKind,
} from "./events.ts";
export { checkLimits, type LimitState, windDownNotice } from "./limits.ts";
export type { AssistantMessageEvent, Provider, StreamFunction, StreamRequest } from "./provider.ts";
export { createRepeatGuard, DEFAULT_REPEAT_FAIL_AT, DEFAULT_REPEAT_WARN_AT } from "./repeat-guard.ts";
export * from "./types.ts";
export { addUsage, emptyUsage, priceUsage } from "./usage.ts";
export { toolParametersJsonSchema, validateToolArguments } from "./validate.ts";
