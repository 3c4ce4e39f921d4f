import type { ModelPricing } from "../core/types.ts";

/**
 * The maintained model catalog, `@pydantic/genai-prices` (prices and context windows of the
 * providers' models, matched by the catalog's own id rules, dated and tiered prices resolved for
 * today). It is ~0.8 MB of code, so it is loaded on demand, in a lazy chunk of the bundle:
 * `loadCatalog()` once, then `catalogEntry()` answers synchronously. Before the load has finished
 * (or if it failed) `catalogEntry()` answers undefined, as for a model the catalog lacks.
 */
type GenaiPrices = typeof import("@pydantic/genai-prices");

export interface CatalogEntry {
  /** The catalog's id of the entry that matched (`claude-sonnet-5` for `claude-sonnet-5-5`). */
  id: string;
  pricing?: ModelPricing;
  contextWindow?: number;
}

let catalog: GenaiPrices | undefined;
let loading: Promise<void> | undefined;

/** Loads the catalog once; later calls return the same promise. Never rejects. */
export function loadCatalog(): Promise<void> {
  loading ??= import("@pydantic/genai-prices").then(
    (module) => {
      catalog = module;
    },
    () => {
      // A bundle without its chunk: prices are then unknown, which every caller already handles.
    },
  );
  return loading;
}

/** Whether `loadCatalog()` has finished with the catalog in hand. */
export function catalogLoaded(): boolean {
  return catalog !== undefined;
}

/** The catalog's entry for a model of `provider` ("anthropic", "openai"), priced as of `now`. */
export function catalogEntry(provider: string, id: string, now: Date): CatalogEntry | undefined {
  if (!catalog) return undefined;
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

/** The ids of the catalog's entries for `provider` (for did-you-mean); empty before the load. */
export function catalogIds(provider: string): string[] {
  return catalog?.findProvider({ providerId: provider })?.models.map((model) => model.id) ?? [];
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
