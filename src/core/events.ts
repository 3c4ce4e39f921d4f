import type { AssistantMessageEvent } from "./provider.ts";
import type {
  AgentMessage,
  AgentToolResult,
  AssistantMessage,
  LimitKind,
  Model,
  ThinkingLevel,
  ToolResultMessage,
  Usage,
} from "./types.ts";

/** Why `prompt()` returned. */
export type AgentStopReason =
  | "stop" // the model finished (and before-stop checks, if any, passed)
  | "terminate" // a tool asked to end the run
  | "failure" // before-stop checks still failing
  | "limit" // turns, tokens or cost
  | "aborted" // the signal fired
  | "error"; // the provider failed (retries exhausted, auth, ...)

export interface AgentRunOutcome {
  reason: AgentStopReason;
  limit?: LimitKind;
  /** For "error" and "failure": what went wrong, one line. */
  message?: string;
  /** Messages added by this prompt. */
  newMessages: AgentMessage[];
  turns: number;
  usage: Usage;
}

export type HookName = "beforeToolCall" | "afterToolCall" | "prepareNextTurn" | "beforeStop";

/** Every event the agent emits, in order. Front ends render these; nothing else is needed. */
export type AgentEvent =
  | { type: "agent_start"; prompt: string }
  | { type: "agent_end"; outcome: AgentRunOutcome }
  | { type: "turn_start"; turn: number; model: Model; thinkingLevel: ThinkingLevel }
  | { type: "turn_end"; turn: number; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; message: AssistantMessage; event: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; partialResult: AgentToolResult }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: ToolResultMessage;
      isError: boolean;
      blocked: boolean;
      /** Why a `beforeToolCall` hook blocked the call. */
      blockReason?: string;
      durationMs: number;
    }
  | {
      type: "hook_decision";
      hook: HookName;
      toolCallId?: string;
      toolName?: string;
      decision: "block" | "patch" | "update" | "continue" | "fail";
      reason?: string;
    }
  | { type: "usage"; turn: number; usage: Usage; total: Usage }
  | { type: "limit"; limit: LimitKind; message: string }
  /** Something went wrong that does not change the run (a listener that failed). */
  | { type: "warning"; message: string };

/**
 * Sees every event of a prompt, `agent_start` to `agent_end`, nothing after. Not awaited (a slow
 * listener never slows the run); it may be async. Throwing or rejecting is reported once (a
 * `warning` event) and changes nothing.
 */
export type AgentEventListener = (event: AgentEvent) => void;
