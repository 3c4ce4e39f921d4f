import { randomUUID } from "node:crypto";
import type { AssistantMessageEvent } from "../core/provider.ts";
import type { MessageBuilder } from "./message-builder.ts";

/** Header carrying a request's notice id from the attempt to the fetch wrapper; stripped before sending. */
export const NOTICE_HEADER = "x-agent-run-request";

export interface RetryNotice {
  /** 1-based number of the retry the SDK is about to make. */
  attempt: number;
  /** The server's retry-after when given, else the SDK's nominal backoff. */
  delayMs: number;
  reason: string;
}

/**
 * Lets the fetch wrapper tell a waiting attempt that the SDK is about to retry, so the run can show
 * "429, retrying in 20 s" instead of going silent while the SDK backs off.
 */
export class RetryNotices {
  readonly #listeners = new Map<string, (notice: RetryNotice) => void>();

  register(listener: (notice: RetryNotice) => void): { id: string; dispose(): void } {
    const id = randomUUID();
    this.#listeners.set(id, listener);
    return { id, dispose: () => this.#listeners.delete(id) };
  }

  notify(id: string | null, notice: RetryNotice): void {
    if (id) this.#listeners.get(id)?.(notice);
  }
}

/**
 * Awaits the SDK call that opens a stream (the SDK retries inside it), yielding a `retry` event
 * for each notice that arrives meanwhile; returns the call's result or throws its error.
 */
export async function* whileOpening<T>(
  open: (headers: Record<string, string>) => Promise<T>,
  notices: RetryNotices,
  builder: MessageBuilder,
): AsyncGenerator<AssistantMessageEvent, T> {
  const queue: RetryNotice[] = [];
  let wake: (() => void) | undefined;
  const registration = notices.register((notice) => {
    queue.push(notice);
    wake?.();
  });
  try {
    let settled: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    const pending = open({ [NOTICE_HEADER]: registration.id }).then(
      (value) => {
        settled = { ok: true, value };
        wake?.();
      },
      (error: unknown) => {
        settled = { ok: false, error };
        wake?.();
      },
    );
    while (true) {
      const notice = queue.shift();
      if (notice) {
        yield { type: "retry", ...notice, partial: builder.message };
        continue;
      }
      if (settled) {
        if (settled.ok) return settled.value;
        throw settled.error;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
      void pending;
    }
  } finally {
    registration.dispose();
  }
}

/** The SDKs' backoff before retry n (1-based), without jitter: 0.5 s doubling, at most 8 s. */
export function nominalBackoffMs(retry: number): number {
  return Math.min(500 * 2 ** (retry - 1), 8000);
}

/** Milliseconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date), as the SDKs read them. */
export function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms > 0) return ms;
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value) - Date.now();
  return date > 0 ? date : undefined;
}
