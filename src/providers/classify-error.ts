import type { ProviderErrorInfo } from "../core/types.ts";

/** A failure our own retry layer handles: the stream broke or went quiet after the headers. */
export class StreamInterruptedError extends Error {
  override readonly name = "StreamInterruptedError";
  readonly kind: "cut" | "idle";
  constructor(kind: "cut" | "idle", message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

/** A failure the server reported inside a 200 stream (an `error` or `response.failed` event). */
export class InStreamError extends Error {
  override readonly name = "InStreamError";
  readonly code: string;
  constructor(code: string, message: string) {
    super(`${code}: ${message}`);
    this.code = code;
  }
}

interface ErrorFacts {
  status?: number;
  /** Provider error type or code, e.g. "overloaded_error", "insufficient_quota". */
  type?: string;
  message: string;
  constructorName: string;
}

const SPEND = /insufficient_quota|billing|credit balance|spend limit|quota exceeded|payment required/i;

/**
 * Maps anything a provider SDK throws to a `ProviderErrorInfo` and says whether our layer may retry
 * it. HTTP status errors reach us after the SDK's own retries, so they are final; errors raised
 * mid-stream (an SSE `error` event, a cut connection, an idle stream) are retried by us.
 */
export function classifyError(
  provider: string,
  error: unknown,
): { info: ProviderErrorInfo; retry: boolean; sdkRetried?: boolean } {
  const facts = factsOf(error);
  const info = (kind: ProviderErrorInfo["kind"]): ProviderErrorInfo => ({
    provider,
    ...(facts.status !== undefined && { status: facts.status }),
    kind,
    message: facts.message,
  });
  if (error instanceof StreamInterruptedError) {
    return { info: info(error.kind === "idle" ? "timeout" : "connection"), retry: true };
  }
  const status = facts.status;
  const spendText = `${facts.type ?? ""} ${facts.message}`;
  if (status === 402 || SPEND.test(spendText)) return { info: info("spend"), retry: false };
  if (
    status === 401 ||
    status === 403 ||
    facts.type === "authentication_error" ||
    facts.type === "permission_error"
  ) {
    return { info: info("auth"), retry: false };
  }
  if (facts.constructorName.includes("Timeout"))
    return { info: info("timeout"), retry: false, sdkRetried: true };
  if (facts.constructorName.includes("Connection"))
    return { info: info("connection"), retry: false, sdkRetried: true };
  if (status !== undefined) {
    if (status === 408 || status === 409 || status === 429 || status >= 500) {
      return { info: info("transient"), retry: false, sdkRetried: true };
    }
    return { info: info("bad_request"), retry: false };
  }
  if (error instanceof InStreamError || facts.constructorName === "APIError") {
    // An error event inside a 200 stream (overloaded, api_error, rate limit): worth another request.
    const transient = /overloaded|api_error|rate_limit|server_error|timeout/i.test(spendText);
    return { info: info(transient ? "transient" : "unknown"), retry: transient };
  }
  if (isNetworkError(error)) return { info: info("connection"), retry: true };
  return { info: info("unknown"), retry: false };
}

function factsOf(error: unknown): ErrorFacts {
  if (!(error instanceof Error)) return { message: String(error), constructorName: typeof error };
  const e = error as Error & { status?: unknown; type?: unknown; code?: unknown; error?: unknown };
  const status = typeof e.status === "number" ? e.status : undefined;
  const body = e.error as
    | { type?: unknown; code?: unknown; error?: { type?: unknown; code?: unknown } }
    | undefined;
  const type =
    str(e.type) ??
    str(e.code) ??
    str(body?.error?.type) ??
    str(body?.type) ??
    str(body?.code) ??
    str(body?.error?.code);
  return {
    ...(status !== undefined && { status }),
    ...(type !== undefined && { type }),
    message: e.message || e.name,
    constructorName: e.constructor?.name ?? e.name,
  };
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
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

/** "anthropic: 529 overloaded_error: Overloaded" — the one line the run's summary shows. */
export function describeError(info: ProviderErrorInfo): string {
  const status = info.status !== undefined ? ` ${info.status}` : "";
  return `${info.provider}${status} (${info.kind}): ${info.message}`;
}
