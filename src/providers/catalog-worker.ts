/**
 * The model catalog in a worker thread (see `prefetchCatalog` in ./catalog-source.ts): it loads
 * `@pydantic/genai-prices` (~0.8 MB of code, ~25 ms to compile and run) beside the runner's own
 * start-up instead of in its thread, answers the run's questions and ends.
 */
import { parentPort, workerData } from "node:worker_threads";
import * as catalog from "@pydantic/genai-prices";
import { answer, type CatalogQuestion } from "./catalog-answer.ts";

parentPort?.postMessage(answer(catalog, workerData as CatalogQuestion));
