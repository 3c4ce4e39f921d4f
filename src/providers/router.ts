import { errorText } from "../core/errors.ts";
import type { AssistantMessageEvent, Provider, StreamFunction, StreamRequest } from "../core/provider.ts";
import type { Model } from "../core/types.ts";
import { emptyUsage } from "../core/usage.ts";
import { createAnthropicProvider } from "./anthropic.ts";
import type { ProviderDeps } from "./client-config.ts";
import { ProviderConfigError } from "./errors.ts";
import { createOpenAIProvider } from "./openai.ts";
import { createReplayProvider } from "./replay.ts";
import type { ReplaySession } from "./replay-format.ts";

/**
 * Creates the provider for a model. Throws `ProviderConfigError` before any request: missing API
 * key (naming the variable), missing base URL for openai-compatible, unknown provider or api.
 * Provider "replay" cannot be created from a model alone: use `createReplayProvider`.
 */
export function createProvider(model: Model, deps: ProviderDeps = {}): Provider {
  switch (model.provider) {
    case "anthropic":
      return createAnthropicProvider(model, deps);
    case "openai":
    case "openai-compatible":
      return createOpenAIProvider(model, deps);
    case "replay":
      throw new ProviderConfigError(
        "bad_option",
        `model "replay:${model.id}" needs a replay file: pass --replay FILE`,
      );
    default:
      throw new ProviderConfigError("unknown_provider", `unknown provider "${model.provider}"`, {
        detail: "known providers: anthropic, openai, openai-compatible, replay",
      });
  }
}

/**
 * A stream function that sends each request to the provider of `request.model`, so a
 * prepare_next_turn hook may switch models across providers. Providers are created on first use
 * and cached per provider, api, base URL and key variable. With `replay`, every request is played
 * from the session instead (no network, no key). A configuration error surfacing mid-run (the new
 * model's key is missing) ends that stream with an error of kind "config"; the stream never throws.
 * Pass `models` (the spec's model and any prepare_next_turn models) to have their keys and base
 * URLs checked now: a problem then throws `ProviderConfigError` before any run.
 */
export function createProviderRouter(
  deps: ProviderDeps & {
    replay?: ReplaySession;
    models?: Model[];
    /** Start loading the SDK of the first of `models` now (see `Provider.preload`). */
    preload?: boolean;
  } = {},
): StreamFunction {
  if (deps.replay) {
    const replay = createReplayProvider(deps.replay, deps.now ? { now: deps.now } : {});
    return (request) => replay.stream(request);
  }
  const cache = new Map<string, Provider>();
  const keyOf = (model: Model) =>
    [model.provider, model.api ?? "", model.baseUrl ?? "", model.apiKeyEnv ?? ""].join("\u0000");
  for (const model of deps.models ?? []) cache.set(keyOf(model), createProvider(model, deps));
  const first = deps.models?.[0];
  if (deps.preload && first) cache.get(keyOf(first))?.preload?.();
  return (request: StreamRequest) => {
    const { model } = request;
    const key = keyOf(model);
    let provider = cache.get(key);
    if (!provider) {
      try {
        provider = createProvider(model, deps);
      } catch (error) {
        return configFailure(model, error, deps.now ?? Date.now);
      }
      cache.set(key, provider);
    }
    return provider.stream(request);
  };
}

async function* configFailure(
  model: Model,
  error: unknown,
  now: () => number,
): AsyncGenerator<AssistantMessageEvent> {
  const message = errorText(error);
  yield {
    type: "error",
    message: {
      role: "assistant",
      content: [],
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "error",
      errorMessage: message,
      error: { provider: model.provider, kind: "config", message },
      timestamp: now(),
    },
  };
}
