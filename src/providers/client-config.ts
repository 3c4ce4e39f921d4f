import type { StreamRequest } from "../core/provider.ts";
import type { Model } from "../core/types.ts";
import { ProviderConfigError } from "./errors.ts";
import { httpFetch, warmTransport } from "./http-fetch.ts";
import { loadModelCatalogFor } from "./model-catalog.ts";
import { priceFor } from "./pricing.ts";
import type { RunnerOptions } from "./stream-runner.ts";

/**
 * What provider factories need besides the model. Every field has a production default; the four
 * limits may also come from the environment (`AGENT_RUN_MAX_RETRIES`, `AGENT_RUN_REQUEST_TIMEOUT_MS`,
 * `AGENT_RUN_IDLE_TIMEOUT_MS`, `AGENT_RUN_RETRY_DELAY_MS`); a field given here wins.
 */
export interface ProviderDeps {
  /** Where API keys, base URLs and the limits' variables are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Retries of one model call, all failures together (HTTP 408/409/429/5xx, connection, timeout, cut,
   * idle or invalid stream, error event): at most `maxRetries + 1` requests. Default: 4.
   */
  maxRetries?: number;
  /** Time to the response headers, per attempt, in ms (the SDK's `timeout`). Default: 180000. */
  requestTimeoutMs?: number;
  /** No stream event for this long after the headers aborts and retries the request, in ms. Default: 120000. */
  idleTimeoutMs?: number;
  /**
   * First delay before a retry when the server sent no `retry-after`, in ms; doubles per retry,
   * capped at 8 s. Default: 1000.
   */
  retryDelayMs?: number;
  /** The fetch the SDKs use. Default: `httpFetch` (./http-fetch.ts: node:http, else globalThis.fetch). */
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
  const limit = (field: keyof typeof LIMIT_ENV, fallback: number, min: number): number =>
    deps[field] ?? limitFromEnv(env, LIMIT_ENV[field], min) ?? fallback;
  return {
    apiKey,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    maxRetries: limit("maxRetries", DEFAULT_MAX_RETRIES, 0),
    requestTimeoutMs: limit("requestTimeoutMs", DEFAULT_REQUEST_TIMEOUT_MS, 1),
    idleTimeoutMs: limit("idleTimeoutMs", DEFAULT_IDLE_TIMEOUT_MS, 1),
    retryDelayMs: limit("retryDelayMs", DEFAULT_RETRY_DELAY_MS, 0),
    fetch: deps.fetch ?? httpFetch,
    now: deps.now ?? Date.now,
  };
}

/**
 * What a provider's `preload` does for its transport: loads what the default fetch needs for
 * `settings.baseUrl` (see `warmTransport`). A fetch given in `ProviderDeps` is left alone.
 */
export function warmClientTransport(settings: ClientSettings): void {
  if (settings.fetch === httpFetch) warmTransport(settings.baseUrl);
}

const LIMIT_ENV = {
  maxRetries: "AGENT_RUN_MAX_RETRIES",
  requestTimeoutMs: "AGENT_RUN_REQUEST_TIMEOUT_MS",
  idleTimeoutMs: "AGENT_RUN_IDLE_TIMEOUT_MS",
  retryDelayMs: "AGENT_RUN_RETRY_DELAY_MS",
} as const;

/** A whole number of at least `min` from the environment; anything else is a configuration error. */
function limitFromEnv(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min) {
    throw new ProviderConfigError(
      "bad_option",
      `${name} must be a whole number of at least ${min}, got "${raw}"`,
    );
  }
  return value;
}

/** The stream runner's options for one request of an SDK-backed provider. */
export function runnerOptions(
  request: StreamRequest,
  settings: ClientSettings,
  idPrefix: string,
): RunnerOptions {
  return {
    provider: request.model.provider,
    // Read when the response is priced, after `ready`: the model catalog is a lazy chunk.
    get pricing() {
      return priceFor(request.model);
    },
    ready: () => loadModelCatalogFor([request.model]),
    maxRetries: settings.maxRetries,
    idleTimeoutMs: settings.idleTimeoutMs,
    retryDelayMs: settings.retryDelayMs,
    now: settings.now,
    idPrefix,
  };
}
