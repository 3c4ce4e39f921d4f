import type { z } from "zod";

/** How hard a model should think. Each provider maps these to its own knobs. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** Whether a turn's tool calls may run concurrently. */
export type ToolExecutionMode = "sequential" | "parallel";

export type KnownProvider = "anthropic" | "openai" | "openai-compatible" | "replay";

/** Prices in USD per million tokens. */
export interface ModelPricing {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** A model and how to reach it. Only `provider` and `id` are required. */
export interface Model {
  provider: KnownProvider | (string & {});
  id: string;
  /** Provider-specific API flavour, e.g. "responses" or "chat" for openai. */
  api?: string;
  baseUrl?: string;
  /** Name of the environment variable holding the API key. */
  apiKeyEnv?: string;
  maxOutputTokens?: number;
  /** Tokens the model reads at most (prompt and output); overrides the model catalog. */
  contextWindow?: number;
  temperature?: number;
  /** Overrides the model catalog (modelInfo); absent and unknown means cost is unknown (null), never 0. */
  pricing?: ModelPricing;
}

export interface TextContent {
  type: "text";
  text: string;
}

export interface ImageContent {
  type: "image";
  /** Base64-encoded bytes. */
  data: string;
  mimeType: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  /** Provider signature that must be sent back unchanged on the next turn (Anthropic). */
  signature?: string;
  /** The provider hid the reasoning; `signature` then carries the opaque payload. */
  redacted?: boolean;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Raw JSON received so far while streaming; kept on the final call only if it failed to parse. */
  partialJson?: string;
  /** Set when the model's argument JSON could not be parsed; the call becomes an error result. */
  parseError?: string;
}

export interface UsageCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** Token counts and their cost in USD. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: UsageCost;
  /** True when some of these tokens came from a model without a known price: the cost is then unknown. */
  costUnknown?: boolean;
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
}

/** Structured facts about a provider failure; the loop never parses `errorMessage`. */
export interface ProviderErrorInfo {
  provider: string;
  status?: number;
  /**
   * "auth" and "spend" are never retried; "transient" means retries were exhausted;
   * "context_length" means the request does not fit the model's context window (never retried as
   * is: the loop may compact the context with `transformContext` and send the turn once more).
   */
  kind:
    | "auth"
    | "spend"
    | "transient"
    | "bad_request"
    | "context_length"
    | "timeout"
    | "connection"
    | "config"
    | "unknown";
  /** The provider's own error type or code, when it sent one ("overloaded_error", "context_length_exceeded"). */
  code?: string;
  message: string;
}

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  error?: ProviderErrorInfo;
  /**
   * The provider sent no token usage for this message (some servers and proxies leave it out):
   * its counts are 0 and `usage.costUnknown` is set, since what it cost cannot be known.
   */
  usageMissing?: boolean;
  responseId?: string;
  timestamp: number;
}

export interface ToolResultMessage<TDetails = unknown> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details: TDetails;
  usage?: Usage;
  addedToolNames?: string[];
  isError: boolean;
  timestamp: number;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;
export type AgentMessage = Message;

/** What a tool hands back. `usage` is added to the run's totals. */
export interface AgentToolResult<T = unknown> {
  content: (TextContent | ImageContent)[];
  details: T;
  usage?: Usage;
  /** Tools that become available to the model from the next turn on. */
  addedToolNames?: string[];
  /** End the run after the current turn. */
  terminate?: boolean;
  /**
   * Marks the result as an error without throwing, so its details survive (e.g. a command that
   * timed out, with the path of its full output). Throwing also gives an error result.
   */
  isError?: boolean;
}

export type AgentToolUpdateCallback<T = unknown> = (partialResult: AgentToolResult<T>) => void;

/** The outcome of `AgentTool.validateArguments`: the value to run with, or what is wrong, for the model. */
export type ToolArgumentsCheck = { ok: true; value: unknown } | { ok: false; message: string };

/** A JSON Schema object describing a tool's parameters. */
export type JsonSchema = { [key: string]: unknown };

/** A tool's parameters: a zod schema, or a JSON Schema object. */
export type ToolParameters = z.ZodType | JsonSchema;

export interface AgentTool<TParams = unknown, TDetails = unknown> {
  name: string;
  label: string;
  description: string;
  parameters: ToolParameters;
  execute(
    toolCallId: string,
    params: TParams,
    signal: AbortSignal,
    onUpdate: AgentToolUpdateCallback<TDetails>,
    context: AgentContext,
  ): Promise<AgentToolResult<TDetails>>;
  /** Normalise raw arguments (e.g. old parameter names) before validation. */
  prepareArguments?(args: unknown): unknown;
  /**
   * Checks the (prepared) arguments instead of `parameters`: for tools whose JSON Schema is checked
   * by a validator of their own (an MCP server's tools, the structured result). Must not throw.
   */
  validateArguments?(args: unknown): ToolArgumentsCheck;
  /** Overrides the agent's execution mode for calls to this tool. */
  executionMode?: ToolExecutionMode;
}

/**
 * Erases a tool's parameter and detail types so tools of different shapes share one list.
 * Arguments are validated against `parameters` before `execute` sees them.
 */
// biome-ignore lint/suspicious/noExplicitAny: the variance escape hatch for heterogeneous tool lists; never leaks values
export type AnyAgentTool = AgentTool<any, any>;

/** What the model sees: the system prompt, the transcript and the active tools. */
export interface AgentContext {
  systemPrompt: string;
  messages: AgentMessage[];
  tools: AnyAgentTool[];
}

export interface BeforeToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: ToolCall;
  args: unknown;
  context: AgentContext;
}

export interface BeforeToolCallResult {
  block?: boolean;
  reason?: string;
  /** Which of the hook's rules decided (a spec hook's index in its list); copied to `hook_decision`. */
  rule?: number;
}

export interface AfterToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: ToolCall;
  args: unknown;
  result: AgentToolResult;
  isError: boolean;
  context: AgentContext;
}

export interface AfterToolCallResult {
  content?: (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
  usage?: Usage;
  terminate?: boolean;
}

export interface PrepareNextTurnContext {
  /** The assistant message of the turn that just ended. */
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  context: AgentContext;
  /** Messages added since `prompt()` was called. */
  newMessages: AgentMessage[];
  /** Turns completed so far in this prompt (1-based count). */
  turn: number;
  /** Usage so far in this prompt, tools included. */
  usage: Usage;
}

export interface AgentLoopTurnUpdate {
  context?: AgentContext;
  model?: Model;
  thinkingLevel?: ThinkingLevel;
  /** Why, for the `hook_decision` event (default: what changed). */
  reason?: string;
  /** Which of the hook's rules decided (a spec hook's index in its list); copied to `hook_decision`. */
  rule?: number;
}

/** The model wants to stop. Return `continue` to send a message back and keep going, `fail` to end as a failure. */
export interface BeforeStopContext {
  message: AssistantMessage;
  context: AgentContext;
  /** How many times before-stop has already sent the model back (0 on the first stop). */
  attempt: number;
}

export interface BeforeStopResult {
  /** Text sent to the model as a user message; the loop continues. */
  continue?: string;
  /** The run ends with stop reason "failure" and this reason. */
  fail?: string;
  /** Which of the hook's rules decided (a spec hook's index in its list); copied to `hook_decision`. */
  rule?: number;
}

export type BeforeToolCallHook = (
  ctx: BeforeToolCallContext,
  signal: AbortSignal,
) => Promise<BeforeToolCallResult | undefined> | BeforeToolCallResult | undefined;

export type AfterToolCallHook = (
  ctx: AfterToolCallContext,
  signal: AbortSignal,
) => Promise<AfterToolCallResult | undefined> | AfterToolCallResult | undefined;

export type PrepareNextTurnHook = (
  ctx: PrepareNextTurnContext,
) => Promise<AgentLoopTurnUpdate | undefined> | AgentLoopTurnUpdate | undefined;

export type BeforeStopHook = (
  ctx: BeforeStopContext,
  signal: AbortSignal,
) => Promise<BeforeStopResult | undefined> | BeforeStopResult | undefined;

/** Limits checked before every model call. */
export interface AgentLimits {
  maxTurns?: number;
  /** Total tokens (input, output and cache) across the run. */
  maxTokens?: number;
  /**
   * Budget in USD. A turn is not started when the cost so far plus the previous call's cost would
   * exceed it, so a run overshoots by at most the misestimate of one turn.
   */
  maxCostUsd?: number;
  /**
   * The prompt's time budget in milliseconds, counted from `prompt()`. The agent does not enforce
   * it (the caller aborts); it only tells the model when it is near (see `windDownAt`).
   */
  timeoutMs?: number;
  /**
   * When a limit is this far used up (a fraction in (0, 1], e.g. 0.8), the model is told once, in a
   * user message before its next turn, what is left and to finish or wrap up. The last turn of
   * `maxTurns` always counts as near. Default: no notice.
   */
  windDownAt?: number;
}

/** What `transformContext` is told about the request it shapes. */
export interface TransformContextInfo {
  /** The model the request goes to. */
  model: Model;
  systemPrompt: string;
  tools: AnyAgentTool[];
  /**
   * Set when the provider refused the previous attempt of this turn because it does not fit the
   * context window: the transform should make the messages smaller. The turn is sent once more.
   */
  overflow?: ProviderErrorInfo;
  /** Adds usage spent by the transform itself (a summarising request) to the run's totals and limits. */
  addUsage(usage: Usage): void;
}

/**
 * Shapes the messages of each model request (pi-mono's `transformContext`): the transcript in
 * `agent.state.messages` stays whole; what this returns is what the model is sent. Called before
 * every model call with the transcript as it is, and once more when the provider answers with its
 * context-length error. Must not throw or reject: return `messages` itself when there is nothing
 * to do. A transform that throws ends the run with an error.
 */
export type TransformContextHook = (
  messages: AgentMessage[],
  signal: AbortSignal,
  info: TransformContextInfo,
) => Promise<AgentMessage[]> | AgentMessage[];

/**
 * The same failing tool call (same tool, arguments and error) made several times in a row: at
 * `warnAt` the model is told it is repeating itself (and again on each further repeat), at
 * `failAt` the run ends as a failure. Defaults: 3 and 5.
 */
export interface RepeatedFailureLimits {
  warnAt?: number;
  failAt?: number;
}

export type LimitKind = "turns" | "tokens" | "cost" | "timeout";
