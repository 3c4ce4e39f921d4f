import { Worker } from "node:worker_threads";
import * as genaiPrices from "@pydantic/genai-prices";
import { expect, test } from "vitest";
import { answer, answerKey, type CatalogAnswers, entryOf } from "../src/providers/catalog-answer.ts";
import { catalogEntry, catalogIds, loadCatalog, prefetchCatalog } from "../src/providers/catalog-source.ts";
import { BUILT_DIST } from "./helpers/built.ts";

/**
 * Issue 18: a run's router has a worker thread load the model catalog and answer for the run's
 * models, so that the runner's thread never compiles the catalog's ~0.8 MB on its way to the first
 * request or to the end of the run. The answers are the catalog's own; anything else asked is
 * answered by the catalog loaded in the runner's thread after all.
 */
const NOW = Date.parse("2026-12-01T12:00:00Z");
const MODELS = [
  { provider: "anthropic", id: "claude-sonnet-5-5" },
  { provider: "openai", id: "gpt-5.4-mini" },
  { provider: "openai", id: "no-such-model" },
];

test("the worker's answers are the catalog's; a model it was not asked about is answered after the load", async () => {
  prefetchCatalog(MODELS, NOW);
  await loadCatalog();
  for (const { provider, id } of MODELS) {
    expect(catalogEntry(provider, id, new Date(NOW))).toEqual(
      entryOf(genaiPrices, provider, id, new Date(NOW)),
    );
  }
  expect(catalogEntry("anthropic", "claude-sonnet-5-5", new Date(NOW))?.pricing).toEqual({
    input: 2,
    output: 10,
    cacheRead: 0.2,
    cacheWrite: 2.5,
  });
  expect(catalogIds("openai")).toContain("gpt-5.4-mini");

  // Not prefetched: unknown until the catalog is loaded here, then the catalog's.
  const other = { provider: "anthropic", id: "claude-opus-4-1" };
  const expected = entryOf(genaiPrices, other.provider, other.id, new Date(NOW));
  expect(expected).toBeDefined();
  expect(catalogEntry(other.provider, other.id, new Date(NOW))).toBeUndefined();
  await loadCatalog();
  expect(catalogEntry(other.provider, other.id, new Date(NOW))).toEqual(expected);
});

test("the bundle carries the worker as dist/catalog-worker.js, and it answers", async () => {
  const question = { models: MODELS, now: NOW };
  const worker = new Worker(new URL(`file://${BUILT_DIST}/catalog-worker.js`), { workerData: question });
  const answers = await new Promise<CatalogAnswers>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  await worker.terminate();
  expect(answers).toEqual(answer(genaiPrices, question));
  expect(new Map(answers.entries).get(answerKey("openai", "no-such-model"))).toBeNull();
});
