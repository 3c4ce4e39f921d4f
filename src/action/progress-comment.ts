/**
 * The action's side of the progress comment: writes the sticky comment when the run starts, then
 * edits it with the latest snapshot at most once per `intervalMs` (one edit at a time, only when
 * something changed). GitHub's secondary rate limits allow 80 content requests a minute and 500 an
 * hour, so after `SLOW_AFTER_MS` the interval is at least `SLOW_INTERVAL_MS`; a 403 or 429 asking
 * to wait pushes the next edit back by that wait and never fails the run. Any other failure (a
 * read-only token) stops the progress edits with one warning; the final summary is still tried.
 */
import type { StickyComment } from "./comment.ts";
import type { ApiCallOptions } from "./github-api.ts";
import type { ProgressSnapshot } from "./run-protocol.ts";

/** After this long, edits slow down to `SLOW_INTERVAL_MS` (10 minutes). */
export const SLOW_AFTER_MS = 10 * 60_000;
/** The least interval once the run is long: 15 s, 240 edits an hour. */
export const SLOW_INTERVAL_MS = 15_000;

export interface ProgressCommentOptions {
  comment: StickyComment;
  /** The body for a snapshot (undefined: the run has not reported yet). */
  render: (snapshot: ProgressSnapshot | undefined) => string;
  intervalMs: number;
  /** False with `comment: on-change`: only a comment that exists is edited. */
  createIfMissing: boolean;
  apiOptions?: ApiCallOptions;
  log: { info(message: string): void; warning(message: string): void };
  /** Default: Date.now. */
  now?: () => number;
}

export interface ProgressComment {
  update(snapshot: ProgressSnapshot): void;
  /** Stops the edits and waits for one in flight. */
  stop(): Promise<void>;
  /** Whether the comment shows progress now, so the run's end must replace it. */
  readonly shown: boolean;
}

export function startProgressComment(options: ProgressCommentOptions): ProgressComment {
  const now = options.now ?? Date.now;
  const started = now();
  let latest: ProgressSnapshot | undefined;
  let pending = true;
  let nextAt = 0;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let shown = false;
  let slowedDown = false;

  const interval = () =>
    now() - started >= SLOW_AFTER_MS ? Math.max(options.intervalMs, SLOW_INTERVAL_MS) : options.intervalMs;

  const edit = async () => {
    pending = false;
    const outcome = await options.comment.write(options.render(latest), {
      ...options.apiOptions,
      // A rate limit moves the next edit back instead of holding this one.
      maxRetries: 0,
      createIfMissing: options.createIfMissing,
    });
    nextAt = now() + interval();
    if (outcome.ok) {
      if (outcome.value.action === "absent") {
        stopped = true;
        options.log.info("agent-run: no progress shown (comment: on-change and no comment of this task yet)");
        return;
      }
      shown = true;
      return;
    }
    if (outcome.retryAfterMs !== undefined) {
      nextAt = now() + Math.max(interval(), outcome.retryAfterMs);
      pending = true;
      if (!slowedDown) {
        slowedDown = true;
        options.log.info(
          `agent-run: GitHub asked to slow down; progress edits wait ${Math.ceil(outcome.retryAfterMs / 1000)} s`,
        );
      }
      return;
    }
    stopped = true;
    options.log.warning(`agent-run: progress is not shown: ${outcome.message}`);
  };

  const pump = () => {
    if (stopped || inFlight || !pending || timer) return;
    const wait = nextAt - now();
    if (wait > 0) {
      timer = setTimeout(() => {
        timer = undefined;
        pump();
      }, wait);
      timer.unref();
      return;
    }
    inFlight = edit().finally(() => {
      inFlight = undefined;
      pump();
    });
  };

  pump();
  return {
    update(snapshot) {
      latest = snapshot;
      pending = true;
      pump();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await inFlight;
    },
    get shown() {
      return shown;
    },
  };
}
