import { errorText } from "../core/errors.ts";
import type { AssistantMessageEvent } from "../core/provider.ts";
import type { AssistantMessage, StopReason, TextContent, ThinkingContent, ToolCall } from "../core/types.ts";
import { emptyUsage } from "../core/usage.ts";

/** Token counts as a wire format reports them, before pricing. Missing fields count as 0. */
export interface RawUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/**
 * Builds one assistant message from streamed wire events. Each wire block (an Anthropic content
 * index, an OpenAI item id, a chat tool-call index) is addressed by a string key; the builder maps
 * keys to content indices and returns the core event to emit. Never throws on odd input: a delta
 * for an unknown key opens the block.
 */
export class MessageBuilder {
  readonly message: AssistantMessage;
  readonly #keys = new Map<string, number>();
  readonly #idPrefix: string;
  #generatedIds = 0;
  #usageReported = false;

  constructor(provider: string, model: string, now: number, idPrefix = "call") {
    this.message = {
      role: "assistant",
      content: [],
      provider,
      model,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: now,
    };
    this.#idPrefix = idPrefix;
  }

  /** Appends text to the block under `key`; an empty delta (some servers send them) changes nothing. */
  text(key: string, delta: string): AssistantMessageEvent | undefined {
    if (delta === "") return undefined;
    const index = this.#open(key, () => ({ type: "text", text: "" }) satisfies TextContent);
    const part = this.message.content[index] as TextContent;
    part.text += delta;
    return { type: "text_delta", contentIndex: index, delta, partial: this.message };
  }

  thinking(key: string, delta: string): AssistantMessageEvent | undefined {
    if (delta === "") return undefined;
    const index = this.#open(key, () => ({ type: "thinking", thinking: "" }) satisfies ThinkingContent);
    const part = this.message.content[index] as ThinkingContent;
    part.thinking += delta;
    return { type: "thinking_delta", contentIndex: index, delta, partial: this.message };
  }

  thinkingSignature(key: string, signature: string, redacted = false): void {
    const index = this.#open(key, () => ({ type: "thinking", thinking: "" }) satisfies ThinkingContent);
    const part = this.message.content[index] as ThinkingContent;
    part.signature = (part.signature ?? "") + signature;
    if (redacted) part.redacted = true;
  }

  /** Opens a tool call; a missing or empty id gets a generated one (`call_<n>`, unique per message). */
  toolCallStart(key: string, id: string | undefined | null, name: string): void {
    const index = this.#open(key, emptyToolCall);
    const call = this.message.content[index] as ToolCall;
    if (id) call.id = id;
    if (name) call.name = name;
  }

  toolCallDelta(key: string, delta: string): AssistantMessageEvent | undefined {
    const index = this.#open(key, emptyToolCall);
    if (delta === "") return undefined;
    const call = this.message.content[index] as ToolCall;
    call.partialJson = (call.partialJson ?? "") + delta;
    return { type: "toolcall_delta", contentIndex: index, delta, partial: this.message };
  }

  /** Replaces the accumulated arguments (servers that send them whole at the end). */
  toolCallArguments(key: string, json: string): void {
    const index = this.#keys.get(key);
    if (index === undefined) return;
    (this.message.content[index] as ToolCall).partialJson = json;
  }

  /** The id of the tool call opened under `key`, if any. */
  toolCallId(key: string): string | undefined {
    const index = this.#keys.get(key);
    const part = index === undefined ? undefined : this.message.content[index];
    return part?.type === "toolCall" ? part.id : undefined;
  }

  hasKey(key: string): boolean {
    return this.#keys.has(key);
  }

  /** Sets the counts that are present; absent fields keep their value (usage arrives in pieces). */
  usage(raw: RawUsage): void {
    this.#usageReported = true;
    const u = this.message.usage;
    if (raw.input !== undefined) u.input = raw.input;
    if (raw.output !== undefined) u.output = raw.output;
    if (raw.cacheRead !== undefined) u.cacheRead = raw.cacheRead;
    if (raw.cacheWrite !== undefined) u.cacheWrite = raw.cacheWrite;
    u.totalTokens = u.input + u.output + u.cacheRead + u.cacheWrite;
  }

  /**
   * Completes the message: parses each tool call's JSON (unparseable or non-object arguments give
   * `arguments: {}` plus `parseError`, keeping `partialJson`), fills missing ids, sets the stop
   * reason (`toolUse` whenever there are tool calls and the model was not cut off), and marks
   * `usageMissing` when the wire reported no usage at all.
   */
  finish(stopReason: StopReason): AssistantMessage {
    if (!this.#usageReported) this.message.usageMissing = true;
    let hasToolCalls = false;
    for (const part of this.message.content) {
      if (part.type !== "toolCall") continue;
      hasToolCalls = true;
      if (!part.id) part.id = `${this.#idPrefix}_${this.#generatedIds++}`;
      finishToolCall(part);
    }
    this.message.stopReason = hasToolCalls && stopReason === "stop" ? "toolUse" : stopReason;
    return this.message;
  }

  #open(key: string, create: () => TextContent | ThinkingContent | ToolCall): number {
    let index = this.#keys.get(key);
    if (index === undefined) {
      index = this.message.content.length;
      this.message.content.push(create());
      this.#keys.set(key, index);
    }
    return index;
  }
}

function finishToolCall(call: ToolCall): void {
  const raw = (call.partialJson ?? "").trim();
  if (raw === "") {
    call.arguments = {};
    delete call.partialJson;
    return;
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new Error(`expected a JSON object, got ${Array.isArray(parsed) ? "an array" : typeof parsed}`);
    }
    call.arguments = parsed as Record<string, unknown>;
    delete call.partialJson;
  } catch (error) {
    call.arguments = {};
    call.parseError = errorText(error);
  }
}

/** A tool call whose id, name and arguments are still to come: the delta may open it. */
function emptyToolCall(): ToolCall {
  return { type: "toolCall", id: "", name: "", arguments: {}, partialJson: "" };
}
