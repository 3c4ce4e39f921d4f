/**
 * Calls to the GitHub REST API that never throw: a failure (403 from a read-only fork token,
 * 404, rate limit) becomes data the action turns into a warning, so a comment never costs a run.
 */
import type { getOctokit } from "@actions/github";
import { errorText } from "../core/errors.ts";

/** The Octokit client `@actions/github` builds. */
export type GitHubClient = ReturnType<typeof getOctokit>;

/** A failure's `retryAfterMs` is set when GitHub rate-limited the call: how long it asked to wait. */
export type ApiOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; status?: number; message: string; retryAfterMs?: number };

export interface ApiCallOptions {
  /** Longest wait honoured for a `retry-after` (or rate-limit reset), in milliseconds. Default: 20 000. */
  maxRetryWaitMs?: number;
  /** How many times a rate-limited call is retried. Default: 2. */
  maxRetries?: number;
  /** Injected for tests. Default: a real timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Injected for tests. Default: `Date.now`. */
  now?: () => number;
}

/** Default of `ApiCallOptions.maxRetryWaitMs`. */
export const DEFAULT_MAX_RETRY_WAIT_MS = 20_000;

/**
 * Runs `call`; on a rate limit (429, or 403 with `retry-after` / `x-ratelimit-remaining: 0`) waits
 * as told and retries, when the wait is at most `maxRetryWaitMs`. `what` names the call in the message.
 */
export async function callGitHub<T>(
  what: string,
  call: () => Promise<T>,
  options: ApiCallOptions = {},
): Promise<ApiOutcome<T>> {
  const maxWait = options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  const maxRetries = options.maxRetries ?? 2;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = options.now ?? Date.now;
  for (let attempt = 0; ; attempt++) {
    try {
      return { ok: true, value: await call() };
    } catch (error) {
      const info = errorInfo(error);
      const waitMs = rateLimitWaitMs(info, now());
      if (waitMs !== undefined && waitMs <= maxWait && attempt < maxRetries) {
        await sleep(waitMs);
        continue;
      }
      return {
        ok: false,
        status: info.status,
        message: describeFailure(what, info, waitMs),
        ...(waitMs !== undefined && { retryAfterMs: waitMs }),
      };
    }
  }
}

interface ErrorInfo {
  status?: number;
  headers: Record<string, string>;
  message: string;
}

function errorInfo(error: unknown): ErrorInfo {
  const record = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
  const status = typeof record.status === "number" ? record.status : undefined;
  const response = record.response;
  const rawHeaders =
    typeof response === "object" && response !== null
      ? (response as Record<string, unknown>).headers
      : undefined;
  const headers: Record<string, string> = {};
  if (typeof rawHeaders === "object" && rawHeaders !== null) {
    for (const [key, value] of Object.entries(rawHeaders)) {
      if (value !== undefined && value !== null) headers[key.toLowerCase()] = String(value);
    }
  }
  const message = errorText(error);
  return { status, headers, message: message.split("\n")[0] ?? "" };
}

/** Milliseconds to wait before a retry, or `undefined` when the failure is not a rate limit. */
function rateLimitWaitMs(info: ErrorInfo, nowMs: number): number | undefined {
  const retryAfter = info.headers["retry-after"];
  const limited =
    info.status === 429 ||
    (info.status === 403 && (retryAfter !== undefined || info.headers["x-ratelimit-remaining"] === "0"));
  if (!limited) return undefined;
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  }
  const reset = Number(info.headers["x-ratelimit-reset"]);
  if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - nowMs);
  return 60_000;
}

function describeFailure(what: string, info: ErrorInfo, waitMs: number | undefined): string {
  const status = info.status === undefined ? "" : ` (HTTP ${info.status})`;
  let hint: string;
  if (waitMs !== undefined) {
    hint = `rate limited; GitHub asked to wait ${Math.ceil(waitMs / 1000)} s, more than this step waits`;
  } else if (info.status === 403) {
    hint =
      "the token may not write here: on pull requests from forks GITHUB_TOKEN is read-only; " +
      "grant `pull-requests: write` (or `issues: write`) or use pull_request_target with care";
  } else if (info.status === 404) {
    hint = "not found, or the token cannot see it (check the job's `permissions:`)";
  } else if (info.status === 401) {
    hint = "the token was refused";
  } else {
    hint = info.message;
  }
  return `GitHub API: ${what} failed${status}: ${hint}. The run's outputs and step summary are unaffected.`;
}
