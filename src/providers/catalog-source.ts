import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ModelPricing } from "../core/types.ts";
import bundledFile from "./catalog-answers.json" with { type: "json" };
import catalogPackage from "./catalog-version.json" with { type: "json" };
import { num, obj, str } from "./wire-utils.ts";

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

/**
 * The catalog's answers for the models a run asked about, by day: `<day>\0<provider>\0<id>` →
 * the entry (null: the catalog lacks it), `<day>\0<provider>` → its ids. Filled from the answers
 * cache (see `loadCatalogFor`) when the catalog itself is not loaded.
 */
const answers = new Map<string, CatalogEntry | null>();
const answeredIds = new Map<string, string[]>();
let cacheRead: Promise<void> | undefined;

const dayOf = (now: Date) => now.toISOString().slice(0, 10);
const entryKey = (day: string, provider: string, id: string) => `${day}\u0000${provider}\u0000${id}`;
const idsKey = (day: string, provider: string) => `${day}\u0000${provider}`;

/**
 * Makes `catalogEntry` and `catalogIds` answer for `models` as of today: from the answers cache
 * when it holds them, else by loading the catalog (`loadCatalog`), whose answers for them then go
 * into the cache. The cache spares a run on a machine that ran agent-run today the ~25 ms of
 * compiling and running the catalog's 0.8 MB once its first response is in: a file in the user's
 * cache folder (`$XDG_CACHE_HOME/agent-run`, else `~/.cache/agent-run`), per version of the
 * catalog, holding only the answers (prices, context windows, ids) of one day. Never rejects; a
 * cache that cannot be read or written is as if there were none.
 */
export async function loadCatalogFor(models: Array<{ provider: string; id: string }>): Promise<void> {
  if (catalog) return;
  const day = dayOf(new Date());
  const known = () =>
    models.every(
      (model) =>
        answers.has(entryKey(day, model.provider, model.id)) && answeredIds.has(idsKey(day, model.provider)),
    );
  for (const { provider, id } of models) answerFromBundle(day, provider, id);
  if (known()) return;
  cacheRead ??= readAnswers();
  await cacheRead;
  if (known()) return;
  await loadCatalog();
  // The provider asks twice per response: the first to get here writes the answers.
  if (catalog && !known()) await saveAnswers(models, day);
}

/**
 * The catalog's answers that are the same on every day, for the ids the providers' SDKs list and
 * the catalog's own: built from the bundled catalog by scripts/gen-catalog-answers.ts (`npm run
 * catalog-answers`; a test fails while the file is stale). So a run on a fresh machine (a hosted
 * CI runner: no answers cache yet) prices its responses without loading the catalog (~25 ms of
 * compiling and running its 0.8 MB on a fast machine, 60-100 ms on a slow one). A model whose
 * price has a date or time condition is not in it: the catalog answers for it.
 */
export interface BundledAnswers {
  /** The catalog version the answers are from. */
  catalog: string;
  /** `<provider>\0<id>` → the entry, or null: the catalog lacks that model. */
  entries: Record<string, CatalogEntry | null>;
  /** Each provider's ids in the catalog. */
  ids: Record<string, string[]>;
}

const bundled = bundledFile as unknown as BundledAnswers;

function answerFromBundle(day: string, provider: string, id: string): void {
  if (bundled.catalog !== catalogPackage.version) return;
  const entry = bundled.entries[`${provider}\u0000${id}`];
  const ids = bundled.ids[provider];
  if (entry === undefined || ids === undefined) return;
  answers.set(entryKey(day, provider, id), entry);
  answeredIds.set(idsKey(day, provider), ids);
}

/**
 * What catalog-answers.json holds for `ids` (per provider), computed from the catalog itself: the
 * entry of each id whose price has no condition (or null when the catalog lacks it), and each
 * provider's ids.
 */
export async function dayIndependentAnswers(ids: Record<string, readonly string[]>): Promise<BundledAnswers> {
  const module = await import("@pydantic/genai-prices");
  const result: BundledAnswers = { catalog: catalogPackage.version, entries: {}, ids: {} };
  const now = new Date();
  for (const [provider, list] of Object.entries(ids)) {
    const own = idsOf(module, provider);
    result.ids[provider] = own;
    for (const id of [...new Set([...list, ...own])].sort()) {
      const found = module.calcPrice({ input_tokens: 0, output_tokens: 0 }, id, {
        providerId: provider,
        timestamp: now,
      });
      const prices = found?.model.prices;
      if (Array.isArray(prices) && prices.some((price) => price.constraint !== undefined)) continue;
      result.entries[`${provider}\u0000${id}`] = entryOf(module, provider, id, now) ?? null;
    }
  }
  return result;
}

function cacheFile(): string | undefined {
  const env = process.env;
  const base =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : env.HOME && path.isAbsolute(env.HOME)
        ? path.join(env.HOME, ".cache")
        : undefined;
  return base && path.join(base, "agent-run", `catalog-answers-${catalogPackage.version}.json`);
}

interface AnswersFile {
  entries: Record<string, CatalogEntry | null>;
  ids: Record<string, string[]>;
}

async function readAnswers(): Promise<void> {
  const file = cacheFile();
  if (!file) return;
  try {
    const parsed = answersFileOf(JSON.parse(await readFile(file, "utf8")));
    if (!parsed) return;
    for (const [key, entry] of Object.entries(parsed.entries)) answers.set(key, entry);
    for (const [key, ids] of Object.entries(parsed.ids)) answeredIds.set(key, ids);
  } catch {
    // No cache yet, or not one of ours: the catalog is loaded instead.
  }
}

/** Today's answers for `models` (and those of earlier runs today) written back, atomically. */
async function saveAnswers(models: Array<{ provider: string; id: string }>, day: string): Promise<void> {
  const file = cacheFile();
  if (!file || !catalog) return;
  const now = new Date();
  for (const { provider, id } of models) {
    answers.set(entryKey(day, provider, id), entryOf(catalog, provider, id, now) ?? null);
    answeredIds.set(idsKey(day, provider), idsOf(catalog, provider));
  }
  const today = (key: string) => key.startsWith(`${day}\u0000`);
  const content: AnswersFile = {
    entries: Object.fromEntries([...answers].filter(([key]) => today(key))),
    ids: Object.fromEntries([...answeredIds].filter(([key]) => today(key))),
  };
  const temp = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(temp, JSON.stringify(content), { mode: 0o600 });
    await rename(temp, file);
  } catch {
    // A read-only home: no cache, the next run loads the catalog again.
  }
}

/**
 * The answers file's content when it has the shape `saveAnswers` writes, else undefined. Checked by
 * hand rather than by a zod schema: it is read while the first response streams in, where building
 * and compiling the schema took ~1.5 ms.
 */
function answersFileOf(value: unknown): AnswersFile | undefined {
  const file = obj(value);
  const [entriesIn, idsIn] = [obj(file?.entries), obj(file?.ids)];
  if (!entriesIn || !idsIn) return undefined;
  const entries: AnswersFile["entries"] = {};
  for (const [key, stored] of Object.entries(entriesIn)) {
    if (stored === null) {
      entries[key] = null;
      continue;
    }
    const entry = obj(stored);
    const id = str(entry?.id);
    if (!entry || id === undefined) return undefined;
    const read: CatalogEntry = { id };
    if (entry.pricing !== undefined) {
      const pricing = obj(entry.pricing);
      const [input, output, cacheRead, cacheWrite] = PRICE_KEYS.map((name) => num(pricing?.[name]));
      if (input === undefined || output === undefined || cacheRead === undefined || cacheWrite === undefined)
        return undefined;
      read.pricing = { input, output, cacheRead, cacheWrite };
    }
    if (entry.contextWindow !== undefined) {
      const contextWindow = num(entry.contextWindow);
      if (contextWindow === undefined) return undefined;
      read.contextWindow = contextWindow;
    }
    entries[key] = read;
  }
  const ids: AnswersFile["ids"] = {};
  for (const [key, list] of Object.entries(idsIn)) {
    if (!Array.isArray(list) || !list.every((id) => typeof id === "string")) return undefined;
    ids[key] = list;
  }
  return { entries, ids };
}

const PRICE_KEYS = ["input", "output", "cacheRead", "cacheWrite"] as const;

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
  if (!catalog) return answers.get(entryKey(dayOf(now), provider, id)) ?? undefined;
  return entryOf(catalog, provider, id, now);
}

function entryOf(module: GenaiPrices, provider: string, id: string, now: Date): CatalogEntry | undefined {
  const found = module.calcPrice({ input_tokens: 0, output_tokens: 0 }, id, {
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
  if (!catalog) return answeredIds.get(idsKey(dayOf(new Date()), provider)) ?? [];
  return idsOf(catalog, provider);
}

function idsOf(module: GenaiPrices, provider: string): string[] {
  return module.findProvider({ providerId: provider })?.models.map((model) => model.id) ?? [];
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
