import type { StreamRequest } from "../core/provider.ts";
import type { Model } from "../core/types.ts";
import { ProviderConfigError } from "./errors.ts";
import { priceFor } from "./pricing.ts";
import { NOTICE_HEADER, nominalBackoffMs, RetryNotices, retryAfterMs } from "./retry-notices.ts";
import type { RunnerOptions } from "./stream-runner.ts";

/** What provider factories need besides the model. Every field has a production default. */
export interface ProviderDeps {
  /** Where API keys and base URLs are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Retries for HTTP errors (by the SDK, honouring retry-after) and, separately, for cut or idle streams. Default: 4. */
  maxRetries?: number;
  /** Time to the response headers, per attempt, in ms (the SDK's `timeout`). Default: 180000. */
  requestTimeoutMs?: number;
  /** No stream chunk for this long after the headers aborts and retries the request, in ms. Default: 120000. */
  idleTimeoutMs?: number;
  /** First delay before retrying a cut or idle stream, in ms; doubles per retry, capped at 8 s. Default: 1000. */
  retryDelayMs?: number;
  /** The fetch the SDKs use. Default: globalThis.fetch. */
  fetch?: typeof fetch;
  /** Clock in ms for message timestamps. Default: Date.now. */
  now?: () => number;
}

export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_REQUEST_TIMEOUT_MS = 180_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
export const DEFAULT_RETRY_DELAY_MS = 1000;

/** Resolved settings shared by every SDK-backed provider. */
export interface ClientSettings {
  apiKey: string;
  baseUrl: string;
  maxRetries: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  retryDelayMs: number;
  fetch: typeof fetch;
  /** Where `fetch` reports the SDK's upcoming retries. */
  notices: RetryNotices;
  now: () => number;
}

interface Defaults {
  keyEnv: string;
  baseUrlEnv: string;
  baseUrl: string | undefined;
  /** openai-compatible: local servers need no key. */
  keyOptional: boolean;
}

const DEFAULTS: Record<string, Defaults> = {
  anthropic: {
    keyEnv: "ANTHROPIC_API_KEY",
    baseUrlEnv: "ANTHROPIC_BASE_URL",
    baseUrl: "https://api.anthropic.com",
    keyOptional: false,
  },
  openai: {
    keyEnv: "OPENAI_API_KEY",
    baseUrlEnv: "OPENAI_BASE_URL",
    baseUrl: "https://api.openai.com/v1",
    keyOptional: false,
  },
  "openai-compatible": {
    keyEnv: "OPENAI_API_KEY",
    baseUrlEnv: "OPENAI_BASE_URL",
    baseUrl: undefined,
    keyOptional: true,
  },
};

/**
 * Resolves key, base URL and limits for a model. Key: the variable named by `model.apiKeyEnv`, else
 * ANTHROPIC_API_KEY / OPENAI_API_KEY. Base URL: `model.baseUrl`, else ANTHROPIC_BASE_URL /
 * OPENAI_BASE_URL, else the official endpoint (openai-compatible has none and requires one).
 * Throws `ProviderConfigError` naming the missing variable, before any request.
 */
export function resolveClientSettings(model: Model, deps: ProviderDeps = {}): ClientSettings {
  const env = deps.env ?? process.env;
  const defaults = DEFAULTS[model.provider];
  if (!defaults) {
    throw new ProviderConfigError("unknown_provider", `no SDK provider "${model.provider}"`);
  }
  const keyEnv = model.apiKeyEnv ?? defaults.keyEnv;
  let apiKey = env[keyEnv]?.trim();
  if (!apiKey) {
    if (!defaults.keyOptional || model.apiKeyEnv) {
      throw new ProviderConfigError(
        "missing_api_key",
        `${model.provider}: no API key for model "${model.id}": set the environment variable ${keyEnv}`,
        {
          detail: model.apiKeyEnv
            ? "(named by the model's api_key_env)"
            : "(or name another variable with model.api_key_env)",
        },
      );
    }
    apiKey = "not-needed";
  }
  const baseUrl = model.baseUrl ?? (env[defaults.baseUrlEnv]?.trim() || undefined) ?? defaults.baseUrl;
  if (!baseUrl) {
    throw new ProviderConfigError(
      "bad_option",
      `${model.provider}: model "${model.id}" needs a base URL: set model.base_url or ${defaults.baseUrlEnv}`,
    );
  }
  const maxRetries = deps.maxRetries ?? DEFAULT_MAX_RETRIES;
  const notices = new RetryNotices();
  return {
    apiKey,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    maxRetries,
    requestTimeoutMs: deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    idleTimeoutMs: deps.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    retryDelayMs: deps.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
    fetch: wrapFetch(deps.fetch ?? globalThis.fetch, notices, maxRetries, model.provider),
    notices,
    now: deps.now ?? Date.now,
  };
}

const SPEND_BODY = /insufficient_quota|billing|credit balance|spend limit|payment required/i;

/**
 * The fetch given to the SDKs. It (1) marks spend-limit answers `x-should-retry: false`, which both
 * SDKs obey: a 429 for an exhausted quota will not heal by waiting; and (2) tells the waiting
 * attempt (through `notices`) when the SDK is about to retry, so the run can show it.
 */
export function wrapFetch(
  inner: typeof fetch,
  notices: RetryNotices,
  maxRetries: number,
  provider: string,
): typeof fetch {
  const wrapped = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const headers = new Headers(init?.headers);
    const id = headers.get(NOTICE_HEADER);
    headers.delete(NOTICE_HEADER);
    const retryCount = Number.parseInt(headers.get("x-stainless-retry-count") ?? "0", 10) || 0;
    const willRetry = retryCount < maxRetries;
    let response: Response;
    try {
      response = await inner(input, { ...init, headers });
    } catch (error) {
      if (willRetry && !init?.signal?.aborted) {
        const reason = `${provider}: connection failed: ${error instanceof Error ? error.message : String(error)}`;
        notices.notify(id, { attempt: retryCount + 1, delayMs: nominalBackoffMs(retryCount + 1), reason });
      }
      throw error;
    }
    if (response.status < 400) return response;
    let out = response;
    if (response.status === 429 || response.status === 402) {
      const body = await response.text();
      const copy = new Headers(response.headers);
      if (response.status === 402 || SPEND_BODY.test(body)) copy.set("x-should-retry", "false");
      out = new Response(body, { status: response.status, statusText: response.statusText, headers: copy });
    }
    const status = out.status;
    const retryable =
      out.headers.get("x-should-retry") !== "false" &&
      (status === 408 ||
        status === 409 ||
        status === 429 ||
        status >= 500 ||
        out.headers.get("x-should-retry") === "true");
    if (retryable && willRetry) {
      const delayMs = retryAfterMs(out.headers) ?? nominalBackoffMs(retryCount + 1);
      notices.notify(id, { attempt: retryCount + 1, delayMs, reason: `${provider} ${status}` });
    }
    return out;
  };
  return wrapped as typeof fetch;
}

/** The stream runner's options for one request of an SDK-backed provider. */
export function runnerOptions(
  request: StreamRequest,
  settings: ClientSettings,
  idPrefix: string,
): RunnerOptions {
  return {
    provider: request.model.provider,
    pricing: priceFor(request.model),
    maxRetries: settings.maxRetries,
    idleTimeoutMs: settings.idleTimeoutMs,
    retryDelayMs: settings.retryDelayMs,
    now: settings.now,
    idPrefix,
  };
}
