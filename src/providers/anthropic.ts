import type Anthropic from "@anthropic-ai/sdk";
import type { AssistantMessageEvent, Provider, StreamRequest } from "../core/provider.ts";
import type { Model, StopReason } from "../core/types.ts";
import { anthropicBodyBytes, buildAnthropicParams } from "./anthropic-request.ts";
import type { SdkErrorClasses } from "./classify-error.ts";
import {
  type ProviderDeps,
  resolveClientSettings,
  runnerOptions,
  warmClientTransport,
} from "./client-config.ts";
import { InStreamError, StreamInterruptedError } from "./errors.ts";
import type { MessageBuilder } from "./message-builder.ts";
import { readEvents } from "./sse.ts";
import { type AttemptContext, OPENED, openResponse, runStream } from "./stream-runner.ts";
import { rawBody } from "./wire-json.ts";
import { type Json, num, obj, str } from "./wire-utils.ts";

interface AnthropicSdk {
  client: Anthropic;
  errors: SdkErrorClasses;
}

/**
 * The Anthropic Messages API over `@anthropic-ai/sdk`, streaming. Throws `ProviderConfigError` at
 * creation when the API key is missing; afterwards never throws (failures end the stream). The SDK
 * opens the request (auth, base URL, timeout; no retries of its own) and we read the events, so
 * every fault is handled in one place (stream-runner.ts).
 */
export function createAnthropicProvider(model: Model, deps: ProviderDeps = {}): Provider {
  const settings = resolveClientSettings(model, deps);
  let sdk: Promise<AnthropicSdk> | undefined;
  const getSdk = () => {
    sdk ??= import("@anthropic-ai/sdk").then((module) => ({
      client: new module.default({
        apiKey: settings.apiKey,
        authToken: null,
        baseURL: settings.baseUrl,
        maxRetries: 0,
        timeout: settings.requestTimeoutMs,
        fetch: settings.fetch,
        logLevel: "off",
      }),
      errors: module,
    }));
    return sdk;
  };
  return {
    preload() {
      warmClientTransport(settings);
      getSdk().catch(() => {});
    },
    name: "anthropic",
    stream(request: StreamRequest) {
      return runStream(request, runnerOptions(request, settings, "toolu"), (ctx) =>
        anthropicAttempt(getSdk, request, ctx),
      );
    },
  };
}

async function* anthropicAttempt(
  getSdk: () => Promise<AnthropicSdk>,
  request: StreamRequest,
  { signal, builder }: AttemptContext,
): AsyncGenerator<AssistantMessageEvent | typeof OPENED, StopReason> {
  const { client, errors } = await getSdk();
  const params = buildAnthropicParams(request);
  const body = rawBody(anthropicBodyBytes(params));
  const response = await openResponse(
    () => client.messages.create(params, { signal, ...body }).asResponse(),
    errors,
  );
  yield OPENED;
  let stopReason: StopReason | undefined;
  for await (const { data } of readEvents(response)) {
    const event = obj(data) ?? {};
    const type = str(event.type);
    if (type === "message_stop") return stopReason ?? "stop";
    if (type === "error") {
      const error = obj(event.error) ?? {};
      throw new InStreamError(
        str(error.type) ?? "api_error",
        str(error.message) ?? "the stream reported an error",
      );
    }
    if (type === "message_delta") {
      readUsage(builder, obj(event.usage));
      const reason = str(obj(event.delta)?.stop_reason);
      if (reason) stopReason = mapStopReason(reason);
      continue;
    }
    const out = handleEvent(type, event, builder);
    if (out) yield out;
  }
  throw new StreamInterruptedError("cut", "the stream ended before message_stop");
}

/** Maps one wire event to a core event. Wire JSON is read defensively: proxies drop or rename fields. */
function handleEvent(
  type: string | undefined,
  event: Json,
  builder: MessageBuilder,
): AssistantMessageEvent | undefined {
  const key = String(num(event.index) ?? 0);
  switch (type) {
    case "message_start": {
      const message = obj(event.message) ?? {};
      if (str(message.id)) builder.message.responseId = str(message.id);
      readUsage(builder, obj(message.usage));
      return undefined;
    }
    case "content_block_start": {
      const block = obj(event.content_block) ?? {};
      if (block.type === "text") return builder.text(key, str(block.text) ?? "");
      if (block.type === "thinking") return builder.thinking(key, str(block.thinking) ?? "");
      if (block.type === "redacted_thinking") builder.thinkingSignature(key, str(block.data) ?? "", true);
      if (block.type === "tool_use") builder.toolCallStart(key, str(block.id), str(block.name) ?? "");
      return undefined;
    }
    case "content_block_delta": {
      const delta = obj(event.delta) ?? {};
      if (delta.type === "text_delta") return builder.text(key, str(delta.text) ?? "");
      if (delta.type === "thinking_delta") return builder.thinking(key, str(delta.thinking) ?? "");
      if (delta.type === "signature_delta") builder.thinkingSignature(key, str(delta.signature) ?? "");
      if (delta.type === "input_json_delta") return builder.toolCallDelta(key, str(delta.partial_json) ?? "");
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Counts present in a usage object (message_start has input and cache; message_delta the output). */
function readUsage(builder: MessageBuilder, usage: Json | undefined): void {
  if (!usage) return;
  const input = num(usage.input_tokens);
  const output = num(usage.output_tokens);
  const cacheRead = num(usage.cache_read_input_tokens);
  const cacheWrite = num(usage.cache_creation_input_tokens);
  if ([input, output, cacheRead, cacheWrite].every((n) => n === undefined)) return;
  builder.usage({
    ...(input !== undefined && { input }),
    ...(output !== undefined && { output }),
    ...(cacheRead !== undefined && { cacheRead }),
    ...(cacheWrite !== undefined && { cacheWrite }),
  });
}

/** Anthropic's stop reasons: `max_tokens` (and a full context window) cut the message off. */
function mapStopReason(reason: string): StopReason {
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length";
  if (reason === "tool_use") return "toolUse";
  return "stop";
}
