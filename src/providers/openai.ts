import type OpenAI from "openai";
import type { Provider, StreamRequest } from "../core/provider.ts";
import type { Model } from "../core/types.ts";
import type { SdkErrorClasses } from "./classify-error.ts";
import {
  type ProviderDeps,
  resolveClientSettings,
  runnerOptions,
  warmClientTransport,
} from "./client-config.ts";
import { ProviderConfigError } from "./errors.ts";
import { chatAttempt } from "./openai-chat.ts";
import { responsesAttempt } from "./openai-responses.ts";
import { runStream } from "./stream-runner.ts";

/** The client and the error classes of the lazily imported `openai` module. */
export interface OpenAISdk {
  client: OpenAI;
  errors: SdkErrorClasses;
}

/**
 * OpenAI over the `openai` SDK: the Responses API by default, Chat Completions when
 * `model.api === "chat"`. Provider `openai-compatible` always uses Chat Completions against the
 * model's (or OPENAI_BASE_URL's) base URL. Throws `ProviderConfigError` at creation for a missing
 * key or base URL; afterwards never throws.
 */
export function createOpenAIProvider(model: Model, deps: ProviderDeps = {}): Provider {
  const settings = resolveClientSettings(model, deps);
  const compat = model.provider === "openai-compatible";
  const api = compat ? "chat" : (model.api ?? "responses");
  if (api !== "responses" && api !== "chat") {
    throw new ProviderConfigError("bad_option", `openai: unknown api "${api}" for model "${model.id}"`, {
      detail: `expected "responses" (default) or "chat"`,
    });
  }
  let sdk: Promise<OpenAISdk> | undefined;
  const getSdk = () => {
    // No retries in the SDK: the stream runner owns them all, one budget (stream-runner.ts).
    sdk ??= import("openai").then((module) => ({
      client: new module.default({
        apiKey: settings.apiKey,
        baseURL: settings.baseUrl,
        organization: null,
        project: null,
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
    name: model.provider,
    stream(request: StreamRequest) {
      return runStream(request, runnerOptions(request, settings, "call"), (ctx) =>
        api === "chat" ? chatAttempt(getSdk, request, compat, ctx) : responsesAttempt(getSdk, request, ctx),
      );
    },
  };
}
