import { AgentRunError } from "../core/errors.ts";

/** Why a provider could not be configured. Stable: callers branch on `code`, never on the message. */
export type ProviderConfigErrorCode =
  | "bad_model_ref"
  | "unknown_provider"
  | "missing_api_key"
  | "bad_replay_file"
  | "bad_option";

/**
 * A configuration problem found before any request is sent (bad model reference, missing API key,
 * unreadable replay file). The runner maps it to exit code 2 or 4 as it sees fit; `shortMessage`
 * is one line for annotations, `message` the full text.
 */
export class ProviderConfigError extends AgentRunError {
  declare readonly code: ProviderConfigErrorCode;

  constructor(
    code: ProviderConfigErrorCode,
    shortMessage: string,
    options: {
      detail?: string;
      location?: { file: string; line: number; column: number };
      cause?: unknown;
    } = {},
  ) {
    const where = options.location
      ? `${options.location.file}:${options.location.line}:${options.location.column}: `
      : "";
    super("usage", code, `${where}${shortMessage}${options.detail ? `\n${options.detail}` : ""}`, {
      shortMessage: `${where}${shortMessage}`,
      ...(options.location && { location: options.location }),
      cause: options.cause,
    });
    this.name = "ProviderConfigError";
  }
}

/** How a stream failed after its headers: cut off, gone quiet, or not the API's events at all. */
export type StreamInterruption = "cut" | "idle" | "invalid";

/**
 * A stream that broke after the response headers: the connection was cut before the final event,
 * no data came for the idle timeout, or the body was not the API's server-sent events (invalid
 * JSON, an HTML page). The stream runner retries it as a whole request.
 */
export class StreamInterruptedError extends AgentRunError {
  readonly interruption: StreamInterruption;

  constructor(interruption: StreamInterruption, message: string, options: { cause?: unknown } = {}) {
    super("infrastructure", `stream_${interruption}`, message, { cause: options.cause });
    this.name = "StreamInterruptedError";
    this.interruption = interruption;
  }
}

/** A failure the server reported inside a 200 stream (an `error` or `response.failed` event). */
export class InStreamError extends AgentRunError {
  /** The provider's error type or code, e.g. "overloaded_error", "server_error". */
  readonly errorType: string;

  constructor(errorType: string, message: string) {
    super("infrastructure", "in_stream_error", `${errorType}: ${message}`);
    this.name = "InStreamError";
    this.errorType = errorType;
  }
}

/** How a request failed before any stream: an HTTP error status, no connection, no headers in time. */
export type RequestFailure = "status" | "connection" | "timeout" | "aborted";

/**
 * A request the SDK could not open, as data (the SDK's own error is the `cause`): what failed, the
 * HTTP status and the provider's error type when there was an answer, the server's retry advice.
 * Built from the SDKs' exported classes by `requestFailureOf`, never from class names.
 */
export class ProviderRequestError extends AgentRunError {
  readonly failure: RequestFailure;
  readonly status: number | undefined;
  /** The provider's error type or code from the body ("rate_limit_error", "insufficient_quota"). */
  readonly errorType: string | undefined;
  /** The server's `retry-after-ms` / `retry-after`, in ms. */
  readonly retryAfterMs: number | undefined;
  /** The server's `x-should-retry` header, when it sent one. */
  readonly shouldRetry: boolean | undefined;

  constructor(
    failure: RequestFailure,
    message: string,
    facts: {
      status?: number | undefined;
      errorType?: string | undefined;
      retryAfterMs?: number | undefined;
      shouldRetry?: boolean | undefined;
      cause?: unknown;
    } = {},
  ) {
    super("infrastructure", `request_${failure}`, message, { cause: facts.cause });
    this.name = "ProviderRequestError";
    this.failure = failure;
    this.status = facts.status;
    this.errorType = facts.errorType;
    this.retryAfterMs = facts.retryAfterMs;
    this.shouldRetry = facts.shouldRetry;
  }
}
