/**
 * Line matching with a regular expression in a worker thread, under a deadline per file.
 *
 * A model-written regex can backtrack for minutes (`(a+)+$` against a long line of `a`s); run on the
 * main thread it would block the event loop, so neither the run's timeout nor SIGTERM could fire.
 * Here the worker tests the lines while the main thread stays free; when one file takes longer
 * than the deadline (or on abort) the worker is terminated and `match` resolves "timeout" with
 * that file (or "aborted"). The worker is inline code, so the bundles need no extra file.
 *
 * Files go to the worker in batches: a message each way per file cost more than the matching
 * itself (a round trip between threads is tens of microseconds; grep over 20,000 small files spent
 * ~1 s of its 1.7 s waiting for them). The worker says which file it is on, and since when, in
 * memory both threads share, so the deadline still holds for each file of a batch.
 */
import { Worker } from "node:worker_threads";

/** How long one file's matching may take by default: 5000 ms. */
export const DEFAULT_REGEX_TIMEOUT_MS = 5000;

/** Per file of a batch, in order, the indices of its matching lines; shorter when the limit was reached. */
export type BatchHits = number[][];

export interface LineMatcher {
  /**
   * For each of `texts` in turn, the indices of its lines (split on "\n") that the regex matches,
   * at most `limit` in all; the files after the one that reached the limit are left out.
   * `{ timeout: i }` when file `i` took longer than the deadline, "aborted" when the signal fired.
   * Rejects only when the worker itself fails (e.g. out of memory).
   */
  match(texts: readonly string[], limit: number): Promise<BatchHits | { timeout: number } | "aborted">;
  /** Ends the worker; the matcher cannot be used after. */
  close(): Promise<void>;
}

// progress[0]: the index of the file being matched, progress[1]: when its matching began, in ms
// after the batch arrived (the batch's own clock: Date.now() is the same in both threads).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const regex = new RegExp(workerData.source, workerData.flags);
const progress = new Int32Array(workerData.progress);
parentPort.on("message", ({ texts, limit, sentAt }) => {
  const out = [];
  let left = limit;
  for (let f = 0; f < texts.length && left > 0; f++) {
    Atomics.store(progress, 1, Date.now() - sentAt);
    Atomics.store(progress, 0, f);
    const lines = texts[f].split("\\n");
    const hits = [];
    for (let i = 0; i < lines.length && hits.length < left; i++) if (regex.test(lines[i])) hits.push(i);
    left -= hits.length;
    out.push(hits);
  }
  parentPort.postMessage(out);
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
  const shared = new SharedArrayBuffer(8);
  const progress = new Int32Array(shared);
  let worker: Worker | undefined;

  const stop = (): Promise<void> => {
    const current = worker;
    worker = undefined;
    return current ? current.terminate().then(() => undefined) : Promise.resolve();
  };

  const match: LineMatcher["match"] = (texts, limit) => {
    if (options.signal?.aborted) return Promise.resolve("aborted");
    if (texts.length === 0 || limit <= 0) return Promise.resolve([]);
    worker ??= new Worker(WORKER_SOURCE, { eval: true, workerData: { source, flags, progress: shared } });
    const current = worker;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (result: BatchHits | { timeout: number } | "aborted" | Error) => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        current.off("message", onMessage);
        current.off("error", onError);
        if (!Array.isArray(result)) void stop();
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const onMessage = (hits: BatchHits) => finish(hits);
      const onError = (error: Error) =>
        finish(new Error(`the regex worker failed: ${error.message}`, { cause: error }));
      const onAbort = () => finish("aborted");
      const sentAt = Date.now();
      Atomics.store(progress, 0, 0);
      Atomics.store(progress, 1, 0);
      // Wakes when the file being matched would reach its deadline, then looks again: a later
      // file began meanwhile (sleep until its own deadline) or the same is still going (stop).
      const watch = (file: number, startedAt: number) => {
        timer = setTimeout(
          () => {
            const now = Atomics.load(progress, 0);
            const began = sentAt + Atomics.load(progress, 1);
            if (now === file && began === startedAt) finish({ timeout: file });
            else watch(now, began);
          },
          Math.max(0, startedAt + timeoutMs - Date.now()),
        );
      };
      watch(0, sentAt);
      current.on("message", onMessage);
      current.on("error", onError);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      current.postMessage({ texts, limit, sentAt });
    });
  };

  return { match, close: stop };
}
