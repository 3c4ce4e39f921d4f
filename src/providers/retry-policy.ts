/** What is read of a response's headers: a `Headers`, Node's or ./fetch-classes.ts's. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** Longest `retry-after` honoured, in ms; a server asking for more gets this (a CI job must not sleep for hours). */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Longest backoff between two attempts when the server gave no `retry-after`, in ms. */
export const MAX_BACKOFF_MS = 8000;

/**
 * The wait before retry `retries + 1` (`retries` 0-based) when the server said nothing: `baseMs`
 * doubling per retry, capped at 8 s, minus up to 25% jitter so that parallel runs spread out.
 */
export function backoffMs(baseMs: number, retries: number): number {
  const delay = Math.min(baseMs * 2 ** retries, MAX_BACKOFF_MS);
  return Math.round(delay * (1 - Math.random() * 0.25));
}

/**
 * Milliseconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date), as the SDKs read
 * them, capped at `MAX_RETRY_AFTER_MS`; undefined when absent, unreadable or not positive.
 */
export function retryAfterMs(headers: HeaderReader): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms > 0) return Math.min(ms, MAX_RETRY_AFTER_MS);
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return seconds > 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : undefined;
  const untilDate = Date.parse(value) - Date.now();
  return untilDate > 0 ? Math.min(untilDate, MAX_RETRY_AFTER_MS) : undefined;
}
