import type { ProviderErrorInfo } from "../core/types.ts";
import { isContextLengthError } from "./context-length.ts";
import { InStreamError, ProviderRequestError, StreamInterruptedError } from "./errors.ts";
import { FetchHeaders } from "./fetch-classes.ts";
import { type HeaderReader, retryAfterMs } from "./retry-policy.ts";
import { obj, str } from "./wire-utils.ts";

// biome-ignore lint/suspicious/noExplicitAny: a constructor of any arity, only used with instanceof
type ErrorClass = abstract new (...args: any[]) => Error;

/**
 * The error classes an SDK exports. Both SDKs (Stainless-generated) export these four; we test
 * `instanceof` against them, never class names, which the bundle minifies.
 */
export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIUserAbortError: ErrorClass;
}

/**
 * What an SDK threw while opening a request, as a `ProviderRequestError` carrying the facts (the
 * SDK's error is its `cause`). Anything else is returned unchanged.
 */
export function requestFailureOf(error: unknown, sdk: SdkErrorClasses): unknown {
  if (error instanceof sdk.APIUserAbortError) {
    return new ProviderRequestError("aborted", "the request was aborted", { cause: error });
  }
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ProviderRequestError("timeout", "no response within the request timeout", { cause: error });
  }
  if (error instanceof sdk.APIConnectionError) {
    return new ProviderRequestError("connection", `could not connect: ${rootMessage(error)}`, {
      cause: error,
    });
  }
  if (!(error instanceof sdk.APIError)) return error;
  const e = error as Error & { status?: unknown; headers?: unknown; error?: unknown };
  const status = typeof e.status === "number" ? e.status : undefined;
  // Ours (./fetch-classes.ts, what http-fetch answers with) or Node's (the fallback's): either is one.
  const headers = e.headers instanceof FetchHeaders ? (e.headers as HeaderReader) : undefined;
  const body = bodyFacts(e.error);
  const rawText = e.message.replace(/^\d{3} /, "");
  const message = body.message ?? describeBodyText(rawText, headers?.get("content-type") ?? null);
  const shouldRetry = headers?.get("x-should-retry");
  return new ProviderRequestError("status", message, {
    status,
    errorType: body.type,
    retryAfterMs: headers ? retryAfterMs(headers) : undefined,
    shouldRetry: shouldRetry === "true" ? true : shouldRetry === "false" ? false : undefined,
    cause: error,
  });
}

/** A classified failure: what to report, whether to retry, and how long the server asked us to wait. */
export interface ClassifiedError {
  info: ProviderErrorInfo;
  retry: boolean;
  /** The server's `retry-after`, when it sent one (capped). */
  delayMs?: number;
}

const SPEND = /insufficient_quota|billing|credit balance|spend limit|quota exceeded|payment required/i;
const TRANSIENT_TYPE = /overloaded|api_error|rate_limit|server_error|timeout|internal/i;

/**
 * Maps a failure to a `ProviderErrorInfo` and says whether it may be retried, from data only:
 * our own error classes (`requestFailureOf` has turned the SDK's into `ProviderRequestError`),
 * HTTP status, the provider's error type and the server's headers. One budget covers every
 * retry: the SDKs are created with `maxRetries: 0`.
 */
export function classifyError(provider: string, error: unknown): ClassifiedError {
  const info = (
    kind: ProviderErrorInfo["kind"],
    message: string,
    extra: Partial<ProviderErrorInfo> = {},
  ) => ({
    provider,
    ...extra,
    kind,
    message,
  });
  if (error instanceof StreamInterruptedError) {
    const kind =
      error.interruption === "idle" ? "timeout" : error.interruption === "cut" ? "connection" : "transient";
    return { info: info(kind, error.message), retry: true };
  }
  if (error instanceof InStreamError) {
    const code = { code: error.errorType };
    if (SPEND.test(error.message)) return { info: info("spend", error.message, code), retry: false };
    if (isContextLengthError({ code: error.errorType, message: error.message })) {
      return { info: info("context_length", error.message, code), retry: false };
    }
    // An error event inside a 200 stream (overloaded, api_error, rate limit) is worth another request.
    const transient = TRANSIENT_TYPE.test(error.errorType);
    return {
      info: info(transient ? "transient" : "unknown", error.message, { code: error.errorType }),
      retry: transient,
    };
  }
  if (error instanceof ProviderRequestError) return classifyRequestFailure(provider, error);
  const message = error instanceof Error ? error.message || String(error) : String(error);
  if (isNetworkError(error)) return { info: info("connection", message), retry: true };
  return { info: info("unknown", message), retry: false };
}

function classifyRequestFailure(provider: string, error: ProviderRequestError): ClassifiedError {
  const { status, errorType } = error;
  const info = (kind: ProviderErrorInfo["kind"]): ProviderErrorInfo => ({
    provider,
    ...(status !== undefined && { status }),
    ...(errorType !== undefined && { code: errorType }),
    kind,
    message: error.message,
  });
  if (error.failure === "timeout") return { info: info("timeout"), retry: true };
  if (error.failure === "connection") return { info: info("connection"), retry: true };
  if (error.failure === "aborted") return { info: info("unknown"), retry: false };
  if (status === 402 || SPEND.test(`${errorType ?? ""} ${error.message}`))
    return { info: info("spend"), retry: false };
  if (isContextLengthError({ status, code: errorType, message: error.message })) {
    return { info: info("context_length"), retry: false };
  }
  if (
    status === 401 ||
    status === 403 ||
    errorType === "authentication_error" ||
    errorType === "permission_error"
  ) {
    return { info: info("auth"), retry: false };
  }
  const transient =
    status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
  const retry = error.shouldRetry ?? transient;
  return {
    info: info(transient ? "transient" : "bad_request"),
    retry,
    ...(retry && error.retryAfterMs !== undefined && { delayMs: error.retryAfterMs }),
  };
}

/** The provider's error type and message from an error body (Anthropic nests them under `error`). */
function bodyFacts(body: unknown): { type?: string; message?: string } {
  const outer = obj(body);
  const inner = obj(outer?.error);
  const type =
    str(inner?.code) ||
    str(inner?.type) ||
    str(outer?.code) ||
    (outer?.type !== "error" ? str(outer?.type) : undefined);
  const message = str(inner?.message) || str(outer?.message);
  return { ...(type && { type }), ...(message && { message }) };
}

/** One line for a body that is not the API's JSON: an HTML page from a proxy says so, with its title. */
export function describeBodyText(text: string, contentType: string | null): string {
  if (/html/i.test(contentType ?? "") || /^\s*<(!doctype|html|head|body)\b/i.test(text)) {
    const title = /<title[^>]*>([^<]*)</i.exec(text)?.[1] ?? /<h1[^>]*>([^<]*)</i.exec(text)?.[1];
    const name = title?.replace(/\s+/g, " ").trim();
    return `an HTML page instead of the API's answer (a proxy or gateway in between?)${name ? `: "${name.slice(0, 120)}"` : ""}`;
  }
  const line = text.replace(/\s+/g, " ").trim();
  return line === "" ? "(no body)" : line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** The innermost message of a cause chain: "connect ECONNREFUSED 127.0.0.1:9" rather than "Connection error." */
function rootMessage(error: Error): string {
  let current: unknown = error;
  let message = error.message;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current.message) message = current.message;
    current = current.cause;
  }
  return message;
}

/** undici reports cut sockets as TypeError("terminated") with a cause carrying a code. */
function isNetworkError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === "string" && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|UND_ERR_)/.test(code))
      return true;
    if (
      current.message === "terminated" ||
      /socket|other side closed|premature close/i.test(current.message)
    ) {
      return true;
    }
    current = current.cause;
  }
  return false;
}

/** "anthropic 529 (transient): Overloaded" — the one line the run's summary shows. */
export function describeError(info: ProviderErrorInfo): string {
  const status = info.status !== undefined ? ` ${info.status}` : "";
  return `${info.provider}${status} (${info.kind}): ${info.message}`;
}
