import type Anthropic from "@anthropic-ai/sdk";
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages/messages";
import type { AssistantMessageEvent, Provider, StreamRequest } from "../core/provider.ts";
import type { Model, StopReason } from "../core/types.ts";
import { buildAnthropicParams } from "./anthropic-request.ts";
import { StreamInterruptedError } from "./classify-error.ts";
import { type ProviderDeps, resolveClientSettings, runnerOptions } from "./client-config.ts";
import type { MessageBuilder } from "./message-builder.ts";
import { type RetryNotices, whileOpening } from "./retry-notices.ts";
import { type AttemptContext, OPENED, runStream } from "./stream-runner.ts";

/**
 * The Anthropic Messages API over `@anthropic-ai/sdk`, streaming. Throws `ProviderConfigError` at
 * creation when the API key is missing; afterwards never throws (failures end the stream).
 */
export function createAnthropicProvider(model: Model, deps: ProviderDeps = {}): Provider {
  const settings = resolveClientSettings(model, deps);
  let client: Promise<Anthropic> | undefined;
  const getClient = () => {
    client ??= import("@anthropic-ai/sdk").then(
      ({ default: Sdk }) =>
        new Sdk({
          apiKey: settings.apiKey,
          authToken: null,
          baseURL: settings.baseUrl,
          maxRetries: settings.maxRetries,
          timeout: settings.requestTimeoutMs,
          fetch: settings.fetch,
        }),
    );
    return client;
  };
  return {
    name: "anthropic",
    stream(request: StreamRequest) {
      return runStream(request, runnerOptions(request, settings, "toolu"), (ctx) =>
        anthropicAttempt(getClient, settings.notices, request, ctx),
      );
    },
  };
}

async function* anthropicAttempt(
  getClient: () => Promise<Anthropic>,
  notices: RetryNotices,
  request: StreamRequest,
  { signal, builder }: AttemptContext,
): AsyncGenerator<AssistantMessageEvent | typeof OPENED, StopReason> {
  const client = await getClient();
  const params = buildAnthropicParams(request);
  const stream = yield* whileOpening(
    (headers) => client.messages.create(params, { signal, headers }),
    notices,
    builder,
  );
  yield OPENED;
  let stopReason: StopReason | undefined;
  let completed = false;
  for await (const event of stream) {
    const out = handleEvent(event, builder, (reason) => {
      stopReason = reason;
    });
    if (out) yield out;
    if (event.type === "message_stop") completed = true;
  }
  if (!completed) throw new StreamInterruptedError("cut", "the stream ended before message_stop");
  return stopReason ?? "stop";
}

function handleEvent(
  event: RawMessageStreamEvent,
  builder: MessageBuilder,
  setStop: (reason: StopReason) => void,
): AssistantMessageEvent | undefined {
  switch (event.type) {
    case "message_start": {
      const u = event.message.usage;
      builder.message.responseId = event.message.id;
      builder.usage({
        input: u.input_tokens ?? 0,
        output: u.output_tokens ?? 0,
        cacheRead: u.cache_read_input_tokens ?? 0,
        cacheWrite: u.cache_creation_input_tokens ?? 0,
      });
      return undefined;
    }
    case "content_block_start": {
      const key = String(event.index);
      const block = event.content_block;
      if (block.type === "text" && block.text) return builder.text(key, block.text);
      if (block.type === "thinking" && block.thinking) return builder.thinking(key, block.thinking);
      if (block.type === "redacted_thinking") builder.thinkingSignature(key, block.data, true);
      if (block.type === "tool_use") builder.toolCallStart(key, block.id, block.name);
      return undefined;
    }
    case "content_block_delta": {
      const key = String(event.index);
      const delta = event.delta;
      if (delta.type === "text_delta") return builder.text(key, delta.text);
      if (delta.type === "thinking_delta") return builder.thinking(key, delta.thinking);
      if (delta.type === "signature_delta") builder.thinkingSignature(key, delta.signature);
      if (delta.type === "input_json_delta") return builder.toolCallDelta(key, delta.partial_json);
      return undefined;
    }
    case "message_delta": {
      const u = event.usage;
      builder.usage({
        output: u.output_tokens ?? undefined,
        ...(typeof u.input_tokens === "number" && { input: u.input_tokens }),
        ...(typeof u.cache_read_input_tokens === "number" && { cacheRead: u.cache_read_input_tokens }),
        ...(typeof u.cache_creation_input_tokens === "number" && {
          cacheWrite: u.cache_creation_input_tokens,
        }),
      });
      if (event.delta.stop_reason) setStop(mapStopReason(event.delta.stop_reason));
      return undefined;
    }
    default:
      return undefined;
  }
}

function mapStopReason(reason: string): StopReason {
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length";
  if (reason === "tool_use") return "toolUse";
  return "stop";
}
