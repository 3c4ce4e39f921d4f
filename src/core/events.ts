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
  | "failure" // before-stop checks still failing, a call failing the same way again and again, replies cut off
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

/** Why the agent added a user message of its own (see the `notice` event). */
export type NoticeKind = "wind_down" | "repeated_failure" | "cut_off";

/**
 * The four hook points, named as in the task file (the spec's `hooks` keys), in every event that
 * names one. The Agent's options for them are `beforeToolCall`, `afterToolCall`,
 * `prepareNextTurn` (and `prepareNextTurnWithContext`) and `beforeStop`.
 */
export type HookPoint = "before_tool_call" | "after_tool_call" | "prepare_next_turn" | "before_stop";

/** @deprecated The earlier name of `HookPoint` (its values were camelCase up to 0.1.0). */
export type HookName = HookPoint;

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
  /**
   * A hook decided something: one event a decision. `block` (before_tool_call), `patch`
   * (after_tool_call replaced the result), `update` (prepare_next_turn changed the model, thinking
   * level or context), `continue` / `fail` (before_stop sent the model back / ended the run).
   */
  | {
      type: "hook_decision";
      hook: HookPoint;
      toolCallId?: string;
      toolName?: string;
      decision: "block" | "patch" | "update" | "continue" | "fail";
      reason?: string;
      /** Which rule decided, when the hook names one (a spec hook's index in its list). */
      rule?: number;
      /** For `update`: the model switched to (`"provider:id"`) and/or the new thinking level. */
      model?: string;
      thinking?: ThinkingLevel;
    }
  | { type: "usage"; turn: number; usage: Usage; total: Usage }
  | { type: "limit"; limit: LimitKind; message: string }
  /**
   * The agent told the model something in a user message of its own (the message follows as
   * `message_start`/`message_end`): a limit is near, a failing call is being repeated, or a reply
   * was cut off by the output-token limit.
   */
  | { type: "notice"; notice: NoticeKind; message: string }
  /** Something went wrong that does not change the run (a listener that failed). */
  | { type: "warning"; message: string };

/**
 * Sees every event of a prompt, `agent_start` to `agent_end`, nothing after. Not awaited (a slow
 * listener never slows the run); it may be async. Throwing or rejecting is reported once (a
 * `warning` event) and changes nothing.
 */
export type AgentEventListener = (event: AgentEvent) => void;

/** The deciding rule of a hook's answer, as the fields of its `hook_decision` event. */
export function ruleOf(answer: { rule?: number }): { rule?: number } {
  return answer.rule === undefined ? {} : { rule: answer.rule };
}
