import type OpenAI from "openai";
import type { AssistantMessageEvent, StreamRequest } from "../core/provider.ts";
import type { AgentMessage, ImageContent, StopReason, TextContent, ThinkingLevel } from "../core/types.ts";
import { toolParametersJsonSchema } from "../core/validate.ts";
import { InStreamError, StreamInterruptedError } from "./errors.ts";
import type { MessageBuilder } from "./message-builder.ts";
import type { OpenAISdk } from "./openai.ts";
import { readEvents } from "./sse.ts";
import { type AttemptContext, OPENED, openResponse } from "./stream-runner.ts";
import { bodyBytes, perMessage, rawBody } from "./wire-json.ts";
import { argumentsJson, type Json, num, obj, str } from "./wire-utils.ts";

/** Reasoning effort per thinking level; "off" sends no reasoning parameter (the model's default). */
export const OPENAI_REASONING_EFFORT: Record<Exclude<ThinkingLevel, "off">, string> = {
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
};

/**
 * OpenAI models that reason even with no reasoning parameter (o-series, gpt-5 and codex, but not
 * the gpt-5 chat variants). Only these accept `include: ["reasoning.encrypted_content"]`: other
 * models answer 400 "Encrypted content is not supported with this model".
 */
const REASONING_MODEL = /^(o\d|gpt-5(?!(\.\d+)?-chat)|codex)/;

/**
 * Maps a core request to a Responses API body. Stateless (`store: false`): reasoning items travel
 * back encrypted, kept in the thinking part's `signature`. Encrypted reasoning is requested whenever
 * the model may reason, thinking "off" included; a reasoning item without it is never sent back
 * (the API cannot look it up without `store` and fails the request). The input items are kept for
 * later requests (./wire-json.ts): not to be changed.
 */
export function buildResponsesBody(request: StreamRequest): Json {
  const { model } = request;
  const body: Json = { model: model.id, input: responsesInput(request), stream: true, store: false };
  if (request.systemPrompt) body.instructions = request.systemPrompt;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: toolParametersJsonSchema(tool),
      strict: false,
    }));
  }
  if (model.maxOutputTokens !== undefined) body.max_output_tokens = model.maxOutputTokens;
  if (model.temperature !== undefined) body.temperature = model.temperature;
  if (request.thinkingLevel !== "off")
    body.reasoning = { effort: OPENAI_REASONING_EFFORT[request.thinkingLevel], summary: "auto" };
  if (request.thinkingLevel !== "off" || REASONING_MODEL.test(model.id))
    body.include = ["reasoning.encrypted_content"];
  return body;
}

function responsesInput(request: StreamRequest): Json[] {
  const input: Json[] = [];
  for (const message of request.messages) input.push(...perMessage(ITEMS, message, () => itemsOf(message)));
  return input;
}

/** Each message's input items, made once (see ./wire-json.ts). */
const ITEMS = new WeakMap<AgentMessage, Json[]>();

function itemsOf(message: AgentMessage): Json[] {
  if (message.role === "user") {
    const content =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content } as TextContent]
        : message.content;
    return [{ role: "user", content: content.map(inputPart) }];
  }
  if (message.role === "toolResult") {
    const images = message.content.some((part) => part.type === "image");
    const text = message.content
      .filter((p) => p.type === "text")
      .map((p) => (p as TextContent).text)
      .join("\n");
    return [
      {
        type: "function_call_output",
        call_id: message.toolCallId,
        output: images ? message.content.map(inputPart) : text || "(no output)",
      },
    ];
  }
  if (message.stopReason === "error" || message.stopReason === "aborted") return [];
  const items: Json[] = [];
  for (const part of message.content) {
    if (part.type === "text") {
      if (part.text) items.push({ role: "assistant", content: part.text });
    } else if (part.type === "thinking") {
      const item = message.provider === "openai" && part.signature ? parseItem(part.signature) : undefined;
      if (item) items.push(item);
    } else {
      items.push({
        type: "function_call",
        call_id: part.id,
        name: part.name,
        arguments: argumentsJson(part.arguments),
      });
    }
  }
  return items;
}

function inputPart(part: TextContent | ImageContent): Json {
  if (part.type === "text") return { type: "input_text", text: part.text };
  return { type: "input_image", image_url: `data:${part.mimeType};base64,${part.data}`, detail: "auto" };
}

function parseItem(signature: string): Json | undefined {
  try {
    const item = obj(JSON.parse(signature));
    return item?.type === "reasoning" && str(item.encrypted_content) ? item : undefined;
  } catch {
    return undefined;
  }
}

/** One Responses API request, streamed. */
export async function* responsesAttempt(
  getSdk: () => Promise<OpenAISdk>,
  request: StreamRequest,
  { signal, builder }: AttemptContext,
): AsyncGenerator<AssistantMessageEvent | typeof OPENED, StopReason> {
  const { client, errors } = await getSdk();
  const wire = buildResponsesBody(request);
  const body = wire as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
  const raw = rawBody(bodyBytes(wire, "input"));
  const response = await openResponse(
    () => client.responses.create(body, { signal, ...raw }).asResponse(),
    errors,
  );
  yield OPENED;
  for await (const { data } of readEvents(response)) {
    const event = obj(data) ?? {};
    const type = str(event.type) ?? "";
    if (type === "response.completed" || type === "response.incomplete") {
      const response = obj(event.response) ?? {};
      readUsage(builder, response);
      if (str(response.id)) builder.message.responseId = str(response.id);
      if (type === "response.completed") return "stop";
      // Cut off: by the output-token limit (the core then runs none of its tool calls), or by a
      // content filter, which ends the turn as an error as on Chat Completions.
      const reason = str(obj(response.incomplete_details)?.reason) ?? "incomplete";
      if (reason === "max_output_tokens") return "length";
      throw new InStreamError(reason, "the response is incomplete");
    }
    if (type === "response.failed" || type === "error") {
      const error = obj(obj(event.response)?.error) ?? obj(event.error) ?? event;
      throw new InStreamError(str(error.code) ?? "server_error", str(error.message) ?? "the response failed");
    }
    const out = handleEvent(type, event, builder);
    if (out) yield out;
  }
  throw new StreamInterruptedError("cut", "the stream ended before response.completed");
}

function handleEvent(type: string, event: Json, builder: MessageBuilder): AssistantMessageEvent | undefined {
  const itemKey = str(event.item_id) ?? `output_${num(event.output_index) ?? 0}`;
  switch (type) {
    case "response.created":
      builder.message.responseId = str(obj(event.response)?.id);
      return undefined;
    case "response.output_item.added": {
      const item = obj(event.item) ?? {};
      if (item.type === "function_call") {
        builder.toolCallStart(str(item.id) ?? itemKey, str(item.call_id), str(item.name) ?? "");
        const args = str(item.arguments);
        if (args) return builder.toolCallDelta(str(item.id) ?? itemKey, args);
      }
      return undefined;
    }
    case "response.output_text.delta":
      return builder.text(`${itemKey}:${num(event.content_index) ?? 0}`, str(event.delta) ?? "");
    case "response.reasoning_summary_text.delta":
    case "response.reasoning_text.delta":
      return builder.thinking(itemKey, str(event.delta) ?? "");
    case "response.function_call_arguments.delta":
      return builder.toolCallDelta(itemKey, str(event.delta) ?? "");
    case "response.function_call_arguments.done": {
      const args = str(event.arguments);
      if (args !== undefined) builder.toolCallArguments(itemKey, args);
      return undefined;
    }
    case "response.output_item.done": {
      const item = obj(event.item) ?? {};
      const key = str(item.id) ?? itemKey;
      if (item.type === "reasoning")
        builder.thinkingSignature(key, JSON.stringify(item), !builder.hasKey(key));
      if (item.type === "function_call") {
        if (!builder.hasKey(key)) builder.toolCallStart(key, str(item.call_id), str(item.name) ?? "");
        const args = str(item.arguments);
        if (args !== undefined) builder.toolCallArguments(key, args);
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function readUsage(builder: MessageBuilder, response: Json): void {
  const usage = obj(response.usage);
  if (!usage) return;
  const input = num(usage.input_tokens) ?? 0;
  const cached = num(obj(usage.input_tokens_details)?.cached_tokens) ?? 0;
  builder.usage({
    input: input - cached,
    output: num(usage.output_tokens) ?? 0,
    cacheRead: cached,
    cacheWrite: 0,
  });
}
