/**
 * Line matching with a regular expression in a worker thread, under a deadline.
 *
 * A model-written regex can backtrack for minutes (`(a+)+$` against a long line of `a`s); run on the
 * main thread it would block the event loop, so neither the run's timeout nor SIGTERM could fire.
 * Here the worker tests the lines while the main thread stays free; past the deadline (or on abort)
 * the worker is terminated and `match` resolves "timeout" (or "aborted"). The worker is inline code,
 * so the bundles need no extra file.
 */
import { Worker } from "node:worker_threads";

/** How long one file's matching may take by default: 5000 ms. */
export const DEFAULT_REGEX_TIMEOUT_MS = 5000;

export interface LineMatcher {
  /**
   * Indices of the lines of `text` (split on "\n") that the regex matches, at most `limit` of them,
   * in order; "timeout" past the deadline, "aborted" when the signal fired. Rejects only when the
   * worker itself fails (e.g. out of memory).
   */
  match(text: string, limit: number): Promise<number[] | "timeout" | "aborted">;
  /** Ends the worker; the matcher cannot be used after. */
  close(): Promise<void>;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on("message", ({ text, limit }) => {
  const lines = text.split("\\n");
  const hits = [];
  for (let i = 0; i < lines.length && hits.length < limit; i++) if (regex.test(lines[i])) hits.push(i);
  parentPort.postMessage(hits);
});
`;

/**
 * A matcher for `new RegExp(source, flags)` (which the caller has already compiled once, so a syntax
 * error is reported before a worker starts). The worker starts on the first `match`.
 */
export function createLineMatcher(
  source: string,
  flags: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): LineMatcher {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REGEX_TIMEOUT_MS;
  let worker: Worker | undefined;

  const stop = (): Promise<void> => {
    const current = worker;
    worker = undefined;
    return current ? current.terminate().then(() => undefined) : Promise.resolve();
  };

  const match = (text: string, limit: number): Promise<number[] | "timeout" | "aborted"> => {
    if (options.signal?.aborted) return Promise.resolve("aborted");
    worker ??= new Worker(WORKER_SOURCE, { eval: true, workerData: { source, flags } });
    const current = worker;
    return new Promise((resolve, reject) => {
      const finish = (result: number[] | "timeout" | "aborted" | Error) => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        current.off("message", onMessage);
        current.off("error", onError);
        if (!Array.isArray(result)) void stop();
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const onMessage = (hits: number[]) => finish(hits);
      const onError = (error: Error) =>
        finish(new Error(`the regex worker failed: ${error.message}`, { cause: error }));
      const onAbort = () => finish("aborted");
      const timer = setTimeout(() => finish("timeout"), timeoutMs);
      current.on("message", onMessage);
      current.on("error", onError);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      current.postMessage({ text, limit });
    });
  };

  return { match, close: stop };
}
