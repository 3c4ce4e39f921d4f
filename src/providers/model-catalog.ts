import type { Model, ModelPricing } from "../core/types.ts";
import { catalogEntry, catalogIds, loadCatalog, loadCatalogFor } from "./catalog-source.ts";
import supplementFile from "./model-supplement.json" with { type: "json" };
import {
  isSdkProvider,
  SDK_MODELS,
  type SdkProvider,
  sdkDeprecation,
  sdkLists,
  sdkReplacement,
  undated,
} from "./sdk-models.ts";

/** A model its provider's SDK marks deprecated. */
export interface ModelDeprecation {
  /** End-of-life (shutdown) date, ISO `YYYY-MM-DD`, when the SDK gives one. */
  date?: string;
  /** The SDK's words when it gives no date. */
  note?: string;
  /** The newest model of the same family in the SDK's list, when there is one (`claude-sonnet-5-5`). */
  replacement?: string;
  /** The SDK that says so, e.g. `@anthropic-ai/sdk@1.10.0`. */
  source: string;
}

/** What the runner knows about a model: its limits, its price, whether it is current. */
export interface ModelInfo {
  /**
   * The id is one the provider's SDK lists, the catalog has or the supplement adds. Always true
   * for `openai-compatible` and `replay` models, whose ids are free-form.
   */
  known: boolean;
  /** Tokens: `model.context_window` in the spec, else the supplement, else the catalog. */
  contextWindow?: number;
  /** Tokens: `model.max_output_tokens` in the spec, else the supplement. */
  maxOutputTokens?: number;
  /** USD per million tokens: `model.pricing` in the spec, else the supplement, else the catalog. */
  pricing?: ModelPricing;
  /** Where `pricing` came from. */
  pricingSource?: "spec" | "supplement" | "catalog";
  deprecated?: ModelDeprecation;
  /** Why the price is unknown when the supplement says ("trusted-access model; no public price"). */
  note?: string;
}

interface SupplementEntry {
  pricing: ModelPricing | null;
  contextWindow?: number;
  maxOutputTokens?: number;
  source?: string;
  checked: string;
  note?: string;
}

/** The dated supplement (model-supplement.json): current models the catalog lacks or gets wrong. */
export const MODEL_SUPPLEMENT = supplementFile as unknown as Record<
  SdkProvider,
  Record<string, SupplementEntry>
>;

/**
 * Loads the model catalog (`@pydantic/genai-prices`, a lazy chunk of ~0.8 MB) once; later calls
 * return at once. The providers await it before pricing a message (started when the response's
 * headers are in, so no request waits for it), `agent-run validate` before its checks. Call it
 * before `modelInfo` wherever the catalog's answers matter. Never rejects: without the catalog,
 * prices come from the spec and the supplement only.
 */
export function loadModelCatalog(): Promise<void> {
  return loadCatalog();
}

/**
 * What `modelInfo` needs of the catalog for `models`, as of today: from the answers cache when it
 * has them, else by loading the catalog (see `loadCatalogFor`). Models whose price and context
 * window the spec gives, and free-form ones, need none. Never rejects.
 */
export function loadModelCatalogFor(models: Model[]): Promise<void> {
  return loadModelCatalogForChecks(
    models.filter((model) => model.pricing === undefined || model.contextWindow === undefined),
  );
}

/**
 * What the spec's checks need of the catalog for `models` (whether each is known, its price and
 * context window, the provider's ids for did-you-mean), as `loadModelCatalogFor` finds it, for
 * every `anthropic` and `openai` model whatever the spec gives: `agent-run validate` then loads
 * the catalog only for an id the bundled answers do not name. Never rejects.
 */
export function loadModelCatalogForChecks(models: Model[]): Promise<void> {
  const asked = models.filter((model) => isSdkProvider(model.provider));
  return asked.length === 0 ? Promise.resolve() : loadCatalogFor(asked);
}

/**
 * What is known about `model`, synchronously: the spec's own `context_window`, `max_output_tokens`
 * and `pricing` first, then for `anthropic` and `openai` models the dated supplement, the catalog
 * (once `loadModelCatalog()` has resolved) and the SDK's deprecation list. `openai-compatible`
 * models are never looked up: they run against some other server, whose prices and limits are
 * its own, even for an OpenAI model id. `now` (default: the current time) selects dated prices.
 */
export function modelInfo(model: Model, options: { now?: Date } = {}): ModelInfo {
  const info: ModelInfo = { known: true };
  if (model.pricing) {
    info.pricing = model.pricing;
    info.pricingSource = "spec";
  }
  if (model.contextWindow !== undefined) info.contextWindow = model.contextWindow;
  if (model.maxOutputTokens !== undefined) info.maxOutputTokens = model.maxOutputTokens;
  const { provider, id } = model;
  if (!isSdkProvider(provider)) return info;

  const extra = MODEL_SUPPLEMENT[provider][id] ?? MODEL_SUPPLEMENT[provider][undated(id)];
  const entry = catalogEntry(provider, id, options.now ?? new Date());
  if (!info.pricing) {
    if (extra?.pricing) {
      info.pricing = extra.pricing;
      info.pricingSource = "supplement";
    } else if (entry?.pricing) {
      info.pricing = entry.pricing;
      info.pricingSource = "catalog";
    } else if (extra?.note) {
      info.note = extra.note;
    }
  }
  const contextWindow = info.contextWindow ?? extra?.contextWindow ?? entry?.contextWindow;
  if (contextWindow !== undefined) info.contextWindow = contextWindow;
  const maxOutputTokens = info.maxOutputTokens ?? extra?.maxOutputTokens;
  if (maxOutputTokens !== undefined) info.maxOutputTokens = maxOutputTokens;

  const catalogHas = catalogIds(provider);
  info.known =
    sdkLists(provider, id) ||
    extra !== undefined ||
    catalogHas.includes(id) ||
    catalogHas.includes(undated(id));
  const deprecation = sdkDeprecation(provider, id);
  if (deprecation) {
    const replacement = sdkReplacement(provider, id);
    info.deprecated = {
      ...deprecation,
      ...(replacement && { replacement }),
      source: SDK_MODELS[provider].sdk,
    };
  }
  return info;
}

/**
 * The ids a model of `provider` may have, for did-you-mean: the SDK's list, the supplement and the
 * catalog's entries (these once loaded). Empty for providers whose ids are free-form.
 */
export function knownModelIds(provider: string): string[] {
  if (!isSdkProvider(provider)) return [];
  return [
    ...new Set([
      ...SDK_MODELS[provider].models,
      ...Object.keys(MODEL_SUPPLEMENT[provider]),
      ...catalogIds(provider),
    ]),
  ];
}
