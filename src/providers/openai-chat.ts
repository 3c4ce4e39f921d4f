import type OpenAI from "openai";
import type { AssistantMessageEvent, StreamRequest } from "../core/provider.ts";
import type { AgentMessage, ImageContent, StopReason, TextContent } from "../core/types.ts";
import { toolParametersJsonSchema } from "../core/validate.ts";
import { InStreamError, StreamInterruptedError } from "./errors.ts";
import type { MessageBuilder } from "./message-builder.ts";
import type { OpenAISdk } from "./openai.ts";
import { OPENAI_REASONING_EFFORT } from "./openai-responses.ts";
import { readEvents } from "./sse.ts";
import { type AttemptContext, OPENED, openResponse } from "./stream-runner.ts";
import { bodyBytes, perMessage, rawBody } from "./wire-json.ts";
import { argumentsJson, type Json, num, obj, str, textOf } from "./wire-utils.ts";

/** Chat Completions reasoning_effort for OpenAI-compatible servers, which rarely know minimal/xhigh. */
const COMPAT_EFFORT = { minimal: "low", low: "low", medium: "medium", high: "high", xhigh: "high" } as const;

/**
 * Maps a core request to a Chat Completions body. `compat` (openai-compatible servers) uses
 * `max_tokens` instead of `max_completion_tokens` and the three common effort levels. The messages
 * are kept for later requests (./wire-json.ts): not to be changed.
 */
export function buildChatBody(request: StreamRequest, compat: boolean): Json {
  const { model } = request;
  const body: Json = {
    model: model.id,
    messages: chatMessages(request),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters: toolParametersJsonSchema(tool),
      },
    }));
  }
  if (model.maxOutputTokens !== undefined)
    body[compat ? "max_tokens" : "max_completion_tokens"] = model.maxOutputTokens;
  if (model.temperature !== undefined) body.temperature = model.temperature;
  if (request.thinkingLevel !== "off") {
    body.reasoning_effort = (compat ? COMPAT_EFFORT : OPENAI_REASONING_EFFORT)[request.thinkingLevel];
  }
  return body;
}

function chatMessages(request: StreamRequest): Json[] {
  const out: Json[] = [];
  if (request.systemPrompt) out.push({ role: "system", content: request.systemPrompt });
  let pendingImages: ImageContent[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    // Tool messages carry text only; images from tool results follow as a user message.
    out.push({
      role: "user",
      content: [{ type: "text", text: "Images from the tool results above:" }, ...pendingImages.map(part)],
    });
    pendingImages = [];
  };
  for (const message of request.messages) {
    const { items, images } = perMessage(ITEMS, message, () => itemsOf(message));
    if (message.role === "toolResult") pendingImages.push(...images);
    else flushImages();
    out.push(...items);
  }
  flushImages();
  return out;
}

/** Each message's chat messages and, for a tool result, its images; made once (see ./wire-json.ts). */
const ITEMS = new WeakMap<AgentMessage, { items: Json[]; images: ImageContent[] }>();

function itemsOf(message: AgentMessage): { items: Json[]; images: ImageContent[] } {
  if (message.role === "toolResult") {
    const images = message.content.filter((p): p is ImageContent => p.type === "image");
    const text = textOf(message.content) || (images.length > 0 ? "(see the image below)" : "(no output)");
    return { items: [{ role: "tool", tool_call_id: message.toolCallId, content: text }], images };
  }
  if (message.role === "user") {
    const content = typeof message.content === "string" ? message.content : message.content.map(part);
    return { items: [{ role: "user", content }], images: [] };
  }
  if (message.stopReason === "error" || message.stopReason === "aborted") return { items: [], images: [] };
  const text = message.content
    .filter((p): p is TextContent => p.type === "text")
    .map((p) => p.text)
    .join("");
  const calls = message.content.flatMap((p) =>
    p.type === "toolCall"
      ? [{ id: p.id, type: "function", function: { name: p.name, arguments: argumentsJson(p.arguments) } }]
      : [],
  );
  if (!text && calls.length === 0) return { items: [], images: [] };
  const item = { role: "assistant", content: text || null, ...(calls.length > 0 && { tool_calls: calls }) };
  return { items: [item], images: [] };
}

function part(p: TextContent | ImageContent): Json {
  if (p.type === "text") return { type: "text", text: p.text };
  return { type: "image_url", image_url: { url: `data:${p.mimeType};base64,${p.data}` } };
}

/**
 * One Chat Completions request, streamed. Tolerates the usual deviations: no usage chunk, tool calls
 * without ids or indices, arguments sent whole, reasoning as `reasoning_content` or `reasoning`,
 * and a server that ignores `stream: true` and answers one JSON document.
 */
export async function* chatAttempt(
  getSdk: () => Promise<OpenAISdk>,
  request: StreamRequest,
  compat: boolean,
  { signal, builder }: AttemptContext,
): AsyncGenerator<AssistantMessageEvent | typeof OPENED, StopReason> {
  const { client, errors } = await getSdk();
  const wire = buildChatBody(request, compat);
  const body = wire as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming;
  const raw = rawBody(bodyBytes(wire, "messages"));
  const response = await openResponse(
    () => client.chat.completions.create(body, { signal, ...raw }).asResponse(),
    errors,
  );
  yield OPENED;
  let finish: string | undefined;
  const slots = new Map<string, string>();
  for await (const { data } of readEvents(response, { acceptJsonDocument: true })) {
    const chunk = obj(data) ?? {};
    if (chunk.error) {
      const error = obj(chunk.error) ?? {};
      throw new InStreamError(
        str(error.code) ?? str(error.type) ?? "server_error",
        str(error.message) ?? "stream error",
      );
    }
    if (str(chunk.id) && !builder.message.responseId) builder.message.responseId = str(chunk.id);
    readUsage(builder, obj(chunk.usage));
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) {
      const c = obj(choice) ?? {};
      for (const event of handleDelta(obj(c.delta) ?? obj(c.message) ?? {}, builder, slots)) yield event;
      finish = str(c.finish_reason) ?? finish;
    }
  }
  if (finish === undefined)
    throw new StreamInterruptedError("cut", "the stream ended without a finish_reason");
  if (finish === "length") return "length";
  if (finish === "content_filter")
    throw new InStreamError("content_filter", "the response was blocked by a content filter");
  return "stop";
}

function* handleDelta(
  delta: Json,
  builder: MessageBuilder,
  slots: Map<string, string>,
): Generator<AssistantMessageEvent> {
  const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning);
  const thought = reasoning ? builder.thinking("reasoning", reasoning) : undefined;
  if (thought) yield thought;
  const content = str(delta.content);
  const text = content ? builder.text("text", content) : undefined;
  if (text) yield text;
  const calls = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
  for (const [position, value] of calls.entries()) {
    const call = obj(value) ?? {};
    const fn = obj(call.function) ?? {};
    const slot = `tool_${num(call.index) ?? position}`;
    let key = slots.get(slot) ?? slot;
    const id = str(call.id);
    // Servers that omit `index` send every call at position 0; a new id there means a new call.
    const known = builder.toolCallId(key);
    if (id && known && known !== id) {
      key = `tool_id_${id}`;
      slots.set(slot, key);
    }
    builder.toolCallStart(key, id, str(fn.name) ?? "");
    const args = fn.arguments;
    const json =
      typeof args === "string" ? args : args && typeof args === "object" ? JSON.stringify(args) : "";
    const out = json ? builder.toolCallDelta(key, json) : undefined;
    if (out) yield out;
  }
}

function readUsage(builder: MessageBuilder, usage: Json | undefined): void {
  if (!usage) return;
  const input = num(usage.prompt_tokens) ?? 0;
  const cached = num(obj(usage.prompt_tokens_details)?.cached_tokens) ?? num(usage.cached_tokens) ?? 0;
  builder.usage({
    input: input - cached,
    output: num(usage.completion_tokens) ?? 0,
    cacheRead: cached,
    cacheWrite: 0,
  });
}
