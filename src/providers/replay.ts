import type { AssistantMessageEvent, Provider, StreamRequest } from "../core/provider.ts";
import type { Model, ModelPricing, ProviderErrorInfo } from "../core/types.ts";
import { priceUsage } from "../core/usage.ts";
import { MessageBuilder } from "./message-builder.ts";
import { loadModelCatalogFor } from "./model-catalog.ts";
import { parseModelRef } from "./model-ref.ts";
import { priceFor } from "./pricing.ts";
import type { ReplaySession, ReplayTurn } from "./replay-format.ts";

/**
 * Plays a session back, one turn per request, in order, with no network and no API key. Tool call
 * ids are `call_<turn>_<index>` (turn 1-based, index 0-based) unless the file gives them. Usage is
 * priced with the turn's or the file's model (or the turn's `cost`). When the run asks for more
 * turns than recorded, the stream ends with an error of kind "config". Never throws.
 */
export function createReplayProvider(session: ReplaySession, options: { now?: () => number } = {}): Provider {
  const now = options.now ?? Date.now;
  let cursor = 0;
  return {
    name: "replay",
    async *stream(request: StreamRequest): AsyncGenerator<AssistantMessageEvent> {
      const index = cursor++;
      const turn = session.turns[index];
      const model = turnModel(turn, session, request.model);
      const builder = new MessageBuilder(model.provider, model.id, now());
      yield { type: "start", partial: builder.message };
      if (request.signal.aborted) {
        builder.message.stopReason = "aborted";
        builder.message.errorMessage = "aborted";
        yield { type: "error", message: builder.message };
        return;
      }
      if (!turn) {
        const source = session.source ? ` (${session.source})` : "";
        yield fail(builder, {
          provider: "replay",
          kind: "config",
          message: `the replay script ran out: it has ${session.turns.length} turn(s) and the run asked for turn ${index + 1}${source}`,
        });
        return;
      }
      yield* playTurn(turn, index, builder);
      const u = turn.usage;
      builder.usage({
        input: u?.input ?? 0,
        output: u?.output ?? 0,
        cacheRead: u?.cache_read ?? 0,
        cacheWrite: u?.cache_write ?? 0,
      });
      // The recorded model's price: from the catalog's bundled answers when they name it.
      await loadModelCatalogFor([turnModel(turn, session, request.model)]);
      priceTurn(builder, turn, pricingOf(turn, session, request.model));
      if (turn.error !== undefined) {
        const error =
          typeof turn.error === "string" ? { kind: "transient" as const, message: turn.error } : turn.error;
        yield fail(builder, { provider: model.provider, ...error });
        return;
      }
      const stop = turn.stop === "length" ? "length" : "stop";
      const message = builder.finish(stop);
      yield { type: "done", message };
    },
  };
}

function* playTurn(
  turn: ReplayTurn,
  index: number,
  builder: MessageBuilder,
): Generator<AssistantMessageEvent> {
  const events: (AssistantMessageEvent | undefined)[] = [];
  if (turn.thinking !== undefined || turn.thinking_signature !== undefined) {
    if (turn.thinking) events.push(builder.thinking("thinking", turn.thinking));
    if (turn.thinking_signature) builder.thinkingSignature("thinking", turn.thinking_signature);
  }
  if (turn.text) events.push(builder.text("text", turn.text));
  for (const [position, call] of (turn.tool_calls ?? []).entries()) {
    const key = `tool_${position}`;
    builder.toolCallStart(key, call.id ?? `call_${index + 1}_${position}`, call.name);
    events.push(builder.toolCallDelta(key, call.arguments_raw ?? JSON.stringify(call.arguments ?? {})));
  }
  for (const event of events) if (event) yield event;
}

function turnModel(turn: ReplayTurn | undefined, session: ReplaySession, requested: Model): Model {
  const ref = turn?.model ?? session.model;
  if (!ref) return requested;
  try {
    return parseModelRef(ref);
  } catch {
    return requested;
  }
}

/** The recorded model's price; the run's own `model.pricing` applies when it is that same model. */
function pricingOf(turn: ReplayTurn, session: ReplaySession, requested: Model): ModelPricing | undefined {
  const recorded = turnModel(turn, session, requested);
  if (recorded.provider === requested.provider && recorded.id === requested.id && requested.pricing) {
    return requested.pricing;
  }
  return priceFor(recorded);
}

function priceTurn(builder: MessageBuilder, turn: ReplayTurn, pricing: ModelPricing | undefined): void {
  const usage = builder.message.usage;
  if (turn.cost !== undefined) {
    priceUsage(usage, pricing);
    const priced = usage.cost.total;
    const scale = priced > 0 ? turn.cost / priced : 0;
    usage.cost = {
      input: usage.cost.input * scale,
      output: usage.cost.output * scale,
      cacheRead: usage.cost.cacheRead * scale,
      cacheWrite: usage.cost.cacheWrite * scale,
      total: turn.cost,
    };
    delete usage.costUnknown;
    return;
  }
  priceUsage(usage, pricing);
}

function fail(builder: MessageBuilder, info: ProviderErrorInfo): AssistantMessageEvent {
  const message = builder.message;
  message.stopReason = "error";
  message.error = info;
  const status = info.status !== undefined ? ` ${info.status}` : "";
  message.errorMessage = `${info.provider}${status} (${info.kind}): ${info.message}`;
  return { type: "error", message };
}
