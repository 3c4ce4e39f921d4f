export { Agent, type AgentOptions, type AgentState } from "./agent.ts";
export type { LoopConfig, LoopState } from "./agent-loop.ts";
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
} from "./events.ts";
export type { AssistantMessageEvent, Provider, StreamFunction, StreamRequest } from "./provider.ts";
export * from "./types.ts";
export { addUsage, emptyUsage, priceUsage } from "./usage.ts";
export { toolParametersJsonSchema, validateToolArguments } from "./validate.ts";
