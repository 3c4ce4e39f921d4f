import type { AgentMessage, AnyAgentTool, AssistantMessage, Model, ThinkingLevel } from "./types.ts";

/** One LLM call: everything a provider needs to produce the next assistant message. */
export interface StreamRequest {
  model: Model;
  systemPrompt: string;
  messages: AgentMessage[];
  tools: AnyAgentTool[];
  thinkingLevel: ThinkingLevel;
  signal: AbortSignal;
}

/**
 * The stream of one assistant message. `partial` is the message built so far (the same object
 * may be mutated between events; copy it to keep a snapshot). A stream always ends with exactly
 * one `done` or `error` event.
 */
export type AssistantMessageEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "retry"; attempt: number; delayMs: number; reason: string; partial: AssistantMessage }
  | { type: "done"; message: AssistantMessage }
  | { type: "error"; message: AssistantMessage };

/**
 * Produces assistant messages. Must not throw for API failures: it ends the stream with an
 * `error` event whose message has `stopReason: "error"` (or "aborted") and an `errorMessage`.
 */
export interface Provider {
  readonly name: string;
  stream(request: StreamRequest): AsyncIterable<AssistantMessageEvent>;
  /**
   * Starts loading what the first request needs (the SDK), without waiting for it and without a
   * request: a run calls it during its set-up, so the first request does not wait for the load.
   * Never throws; a failed load is reported by the first request, as without it.
   */
  preload?(): void;
}

export type StreamFunction = (request: StreamRequest) => AsyncIterable<AssistantMessageEvent>;
