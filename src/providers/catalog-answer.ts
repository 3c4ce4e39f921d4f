import type { ModelPricing } from "../core/types.ts";

/**
 * What the runner asks of the model catalog (`@pydantic/genai-prices`), answered from the loaded
 * module: by ./catalog-source.ts in the runner's thread, or by ./catalog-worker.ts in a worker
 * that sends the answers back.
 */
export type GenaiPrices = typeof import("@pydantic/genai-prices");

export interface CatalogEntry {
  /** The catalog's id of the entry that matched (`claude-sonnet-5` for `claude-sonnet-5-5`). */
  id: string;
  pricing?: ModelPricing;
  contextWindow?: number;
}

/** The catalog's entry for a model of `provider` ("anthropic", "openai"), priced as of `now`. */
export function entryOf(
  catalog: GenaiPrices,
  provider: string,
  id: string,
  now: Date,
): CatalogEntry | undefined {
  const found = catalog.calcPrice({ input_tokens: 0, output_tokens: 0 }, id, {
    providerId: provider,
    timestamp: now,
  });
  if (!found) return undefined;
  const entry: CatalogEntry = { id: found.model.id };
  const pricing = toPricing(found.model_price);
  if (pricing) entry.pricing = pricing;
  if (found.model.context_window !== undefined) entry.contextWindow = found.model.context_window;
  return entry;
}

/** The ids of the catalog's entries for `provider`. */
export function idsOf(catalog: GenaiPrices, provider: string): string[] {
  return catalog.findProvider({ providerId: provider })?.models.map((model) => model.id) ?? [];
}

type PriceValue = number | { base: number } | undefined;

/**
 * The catalog's per-million prices → `ModelPricing`. Tiered prices (long prompts cost more) give
 * their base, short-prompt rate. No cache-write price means none is billed (OpenAI before GPT-6);
 * no cache-read price, no discount (such a model reports no cached tokens anyway).
 */
function toPricing(price: Record<string, PriceValue>): ModelPricing | undefined {
  const rate = (key: string) => {
    const value = price[key];
    return typeof value === "number" ? value : value?.base;
  };
  const input = rate("input_mtok");
  const output = rate("output_mtok");
  if (input === undefined || output === undefined) return undefined;
  return {
    input,
    output,
    cacheRead: rate("cache_read_mtok") ?? input,
    cacheWrite: rate("cache_write_mtok") ?? 0,
  };
}

/** What a worker asks for: models as `provider` and `id`, priced as of `now` (ms). */
export interface CatalogQuestion {
  models: Array<{ provider: string; id: string }>;
  now: number;
}

/** What it answers: an entry (or null: the catalog lacks it) per `provider\0id`, the ids per provider. */
export interface CatalogAnswers {
  entries: Array<[string, CatalogEntry | null]>;
  ids: Array<[string, string[]]>;
}

export const answerKey = (provider: string, id: string): string => `${provider}\u0000${id}`;

export function answer(catalog: GenaiPrices, question: CatalogQuestion): CatalogAnswers {
  const now = new Date(question.now);
  const providers = new Set(question.models.map((model) => model.provider));
  return {
    entries: question.models.map(({ provider, id }) => [
      answerKey(provider, id),
      entryOf(catalog, provider, id, now) ?? null,
    ]),
    ids: [...providers].map((provider) => [provider, idsOf(catalog, provider)]),
  };
}
