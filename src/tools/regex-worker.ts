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
 *
 * A worker outlives its matcher: starting one is most of a grep over a small project (~65 ms of
 * ~70 here), so a matcher that closes gives its worker back to the process's idle ones for the
 * next (one each for greps that run in parallel), unless it was terminated. Idle workers are
 * unref'd: they never keep the process alive.
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
  /** Lets go of the worker; the matcher cannot be used after. */
  close(): Promise<void>;
}

// progress[0]: the index of the file being matched (-1 once the batch is done), progress[1]: when
// its matching began, in ms after the batch was sent (Date.now() is the same clock in both threads).
// getBuiltinModule rather than require: the worker inherits the process's flags, and under
// `--input-type=module` the code it evaluates is a module, where there is no require.
const WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule("node:worker_threads");
const progress = new Int32Array(workerData.progress);
let regex;
parentPort.on("message", ({ source, flags, texts, limit, sentAt }) => {
  if (!regex || regex.source !== source || regex.flags !== flags) regex = new RegExp(source, flags);
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
  Atomics.store(progress, 0, -1);
  parentPort.postMessage(out);
});
`;

interface MatchWorker {
  worker: Worker;
  progress: Int32Array;
}

/** Workers no matcher holds; more than this many are ended instead of kept. */
const MAX_IDLE = 2;
const idle: MatchWorker[] = [];

function takeWorker(): MatchWorker {
  const kept = idle.pop();
  if (kept) return kept;
  const shared = new SharedArrayBuffer(8);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { progress: shared } });
  worker.unref();
  const taken = { worker, progress: new Int32Array(shared) };
  // An idle worker that fails or ends leaves the pool; a busy one's matcher sees it itself.
  const leave = () => {
    const at = idle.indexOf(taken);
    if (at >= 0) idle.splice(at, 1);
  };
  worker.on("error", leave);
  worker.on("exit", leave);
  return taken;
}

/**
 * Starts a worker for the next matcher now, when none is idle: the run calls it when the model
 * starts streaming a grep call (src/run/execute-run.ts), so that the grep does not wait for one.
 */
export function warmLineMatcher(): void {
  if (idle.length === 0) idle.push(takeWorker());
}

/**
 * A matcher for `new RegExp(source, flags)` (which the caller has already compiled once, so a syntax
 * error is reported before a worker is taken). It takes a worker on the first `match`, or sooner
 * with `warm`.
 */
export function createLineMatcher(
  source: string,
  flags: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): LineMatcher & { warm(): void } {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REGEX_TIMEOUT_MS;
  let held: MatchWorker | undefined;
  let closed = false;
  /** Ends the batch that is out, if any: its worker would answer the next taker with this batch's hits. */
  let cancel: (() => void) | undefined;

  const terminate = (): Promise<void> => {
    const current = held;
    held = undefined;
    return current ? current.worker.terminate().then(() => undefined) : Promise.resolve();
  };

  const match: LineMatcher["match"] = (texts, limit) => {
    if (options.signal?.aborted) return Promise.resolve("aborted");
    if (texts.length === 0 || limit <= 0) return Promise.resolve([]);
    held ??= takeWorker();
    const { worker, progress } = held;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (result: BatchHits | { timeout: number } | "aborted" | Error) => {
        cancel = undefined;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        worker.off("message", onMessage);
        worker.off("error", onError);
        if (!Array.isArray(result)) void terminate();
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const onMessage = (hits: BatchHits) => finish(hits);
      const onError = (error: Error) =>
        finish(new Error(`the regex worker failed: ${error.message}`, { cause: error }));
      const onAbort = () => finish("aborted");
      cancel = onAbort;
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
            // -1: the batch is done and its answer on the way (this thread was busy meanwhile).
            if (now < 0) watch(now, Date.now());
            else if (now === file && began === startedAt) finish({ timeout: file });
            else watch(now, began);
          },
          Math.max(0, startedAt + timeoutMs - Date.now()),
        );
      };
      watch(0, sentAt);
      worker.on("message", onMessage);
      worker.on("error", onError);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      worker.postMessage({ source, flags, texts, limit, sentAt });
    });
  };

  return {
    match,
    warm() {
      if (!closed) held ??= takeWorker();
    },
    async close() {
      closed = true;
      cancel?.();
      const current = held;
      held = undefined;
      if (!current) return;
      if (idle.length < MAX_IDLE) idle.push(current);
      else await current.worker.terminate();
    },
  };
}
