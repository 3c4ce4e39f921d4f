import { Worker } from "node:worker_threads";
import {
  answerKey,
  type CatalogAnswers,
  type CatalogEntry,
  type CatalogQuestion,
  entryOf,
  type GenaiPrices,
  idsOf,
} from "./catalog-answer.ts";

/**
 * The maintained model catalog, `@pydantic/genai-prices` (prices and context windows of the
 * providers' models, matched by the catalog's own id rules, dated and tiered prices resolved for
 * today). It is ~0.8 MB of code, so it is loaded on demand, in a lazy chunk of the bundle:
 * `loadCatalog()` once, then `catalogEntry()` answers synchronously. Before the load has finished
 * (or if it failed) `catalogEntry()` answers undefined, as for a model the catalog lacks.
 *
 * A run knows its models from the start: `prefetchCatalog` has a worker thread load the catalog
 * and answer for them, so that the runner's own thread, busy starting the run, never compiles it.
 * Those answers are priced as of the run's start; `loadCatalog()` then waits for them, and loads
 * the catalog here only if the worker could not answer.
 */
export type { CatalogEntry } from "./catalog-answer.ts";

let catalog: GenaiPrices | undefined;
let loading: Promise<void> | undefined;
let prefetched: { entries: Map<string, CatalogEntry | null>; ids: Map<string, string[]> } | undefined;
let prefetching: Promise<void> | undefined;
let importing: Promise<void> | undefined;

/**
 * Loads the catalog once (or waits for a prefetch's answers); later calls return the same promise.
 * Never rejects.
 */
export function loadCatalog(): Promise<void> {
  loading ??= (prefetching ?? Promise.resolve()).then(() => (prefetched ? undefined : importCatalog()));
  return loading;
}

function importCatalog(): Promise<void> {
  importing ??= import("@pydantic/genai-prices").then(
    (module) => {
      catalog = module;
    },
    () => {
      // A bundle without its chunk: prices are then unknown, which every caller already handles.
    },
  );
  return importing;
}

/**
 * Starts a worker thread that loads the catalog and answers for `models` as of `now` (ms). A
 * worker that cannot start or fails leaves `loadCatalog()` to load it in this thread.
 */
export function prefetchCatalog(models: Array<{ provider: string; id: string }>, now: number): void {
  if (prefetching || loading) return;
  prefetching = new Promise<void>((resolve) => {
    let worker: Worker;
    try {
      const question: CatalogQuestion = { models, now };
      worker = new Worker(workerFile(), { workerData: question });
    } catch {
      resolve();
      return;
    }
    // Never what keeps the process alive: a run that ends first has no use for the answers.
    worker.unref();
    const done = () => {
      resolve();
      void worker.terminate();
    };
    worker.once("message", (answers: CatalogAnswers) => {
      prefetched = { entries: new Map(answers.entries), ids: new Map(answers.ids) };
      done();
    });
    worker.once("error", done);
    worker.once("exit", done);
  });
}

/**
 * The worker's module: in the bundle, dist/catalog-worker.js beside the chunks/ folder this code
 * is bundled into; run from the sources, the .ts file next to this one.
 */
function workerFile(): URL {
  const fromSources = import.meta.url.endsWith(".ts");
  return new URL(fromSources ? "./catalog-worker.ts" : "../catalog-worker.js", import.meta.url);
}

/** Whether `loadCatalog()` has finished with the catalog (or a prefetch's answers) in hand. */
export function catalogLoaded(): boolean {
  return catalog !== undefined || prefetched !== undefined;
}

/** The catalog's entry for a model of `provider` ("anthropic", "openai"), priced as of `now`. */
export function catalogEntry(provider: string, id: string, now: Date): CatalogEntry | undefined {
  const answered = prefetched?.entries.get(answerKey(provider, id));
  if (answered !== undefined) return answered ?? undefined;
  if (!catalog) return missed();
  return entryOf(catalog, provider, id, now);
}

/** The ids of the catalog's entries for `provider` (for did-you-mean); empty before the load. */
export function catalogIds(provider: string): string[] {
  const answered = prefetched?.ids.get(provider);
  if (answered) return answered;
  return catalog ? idsOf(catalog, provider) : (missed() ?? []);
}

/**
 * A question the prefetched answers do not cover (a model the run did not name): the catalog is
 * loaded here after all, for `loadCatalog()`'s next callers.
 */
function missed(): undefined {
  if (prefetched) loading = importCatalog();
  return undefined;
}
