import type { AssistantMessageEvent, StreamRequest } from "../core/provider.ts";
import type { AssistantMessage, ModelPricing, ProviderErrorInfo, StopReason, Usage } from "../core/types.ts";
import { addUsage, emptyUsage, priceUsage } from "../core/usage.ts";
import { classifyError, describeError, requestFailureOf, type SdkErrorClasses } from "./classify-error.ts";
import { StreamInterruptedError } from "./errors.ts";
import { MessageBuilder } from "./message-builder.ts";
import { backoffMs } from "./retry-policy.ts";

/** Marker an attempt yields once the response headers arrived: from then on the idle timeout applies. */
export const OPENED = "opened";

export interface AttemptContext {
  /** Fires when the caller aborts or the stream goes idle; pass it to the SDK request. */
  signal: AbortSignal;
  builder: MessageBuilder;
}

/**
 * One HTTP request. Yields core events as the wire delivers them (and `OPENED` after the headers);
 * returns the stop reason once the wire said the message is complete. Must throw
 * `StreamInterruptedError("cut")` when the stream ends before that.
 */
export type Attempt = (
  ctx: AttemptContext,
) => AsyncGenerator<AssistantMessageEvent | typeof OPENED, StopReason>;

export interface RunnerOptions {
  /** Provider name used in errors ("anthropic", "openai", ...). */
  provider: string;
  pricing: ModelPricing | undefined;
  /**
   * Awaited before a message is priced: the model catalog `pricing` is read from (a lazy chunk,
   * started once the response's headers are in, so it never delays a request).
   */
  ready?: () => Promise<void>;
  /**
   * Retries of one model call, whatever failed: an HTTP error, no connection, no headers in time, a
   * cut, idle or invalid stream, an error event. The only retries: the SDKs are set to make none.
   */
  maxRetries: number;
  /** No chunk for this long after the headers aborts and retries the request. */
  idleTimeoutMs: number;
  /** First backoff delay when the server gave no `retry-after`; doubles per retry, capped at 8 s, with up to 25% jitter. */
  retryDelayMs: number;
  now: () => number;
  /** Prefix of generated tool call ids. Default: "call". */
  idPrefix?: string;
}

/**
 * Opens a request through an SDK (created with `maxRetries: 0`) and returns the raw response, whose
 * body `readEvents` parses. What the SDK throws becomes a `ProviderRequestError` (see
 * `requestFailureOf`), so failures are classified by data.
 */
export async function openResponse(
  open: () => PromiseLike<Response>,
  sdk: SdkErrorClasses,
): Promise<Response> {
  try {
    return await open();
  } catch (error) {
    throw requestFailureOf(error, sdk);
  }
}

/**
 * Runs attempts until one completes, turning failures into the single `error` event the core
 * expects: at most `maxRetries` retries in all, each announced by a `retry` event, waiting the
 * server's `retry-after` when it sent one. Usage reported by failed attempts is added to the final
 * message, so nothing the provider billed is lost. Never throws.
 */
export async function* runStream(
  request: StreamRequest,
  options: RunnerOptions,
  attempt: Attempt,
): AsyncGenerator<AssistantMessageEvent> {
  const carried = emptyUsage();
  let builder = newBuilder(request, options);
  yield { type: "start", partial: builder.message };
  for (let retries = 0; ; retries++) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal.reason);
    if (request.signal.aborted) onAbort();
    request.signal.addEventListener("abort", onAbort, { once: true });
    let idle = false;
    const generator = attempt({ signal: controller.signal, builder });
    try {
      let opened = false;
      let stopReason: StopReason;
      while (true) {
        const step = await nextWithin(generator, opened ? options.idleTimeoutMs : undefined, () => {
          idle = true;
          controller.abort(new StreamInterruptedError("idle", `no data for ${options.idleTimeoutMs} ms`));
        });
        if (step.done) {
          stopReason = step.value;
          break;
        }
        if (step.value === OPENED) {
          opened = true;
          void options.ready?.();
        } else yield step.value;
      }
      const message = builder.finish(stopReason);
      await options.ready?.();
      yield { type: "done", message: settleUsage(message, carried, options.pricing) };
      return;
    } catch (thrown) {
      await options.ready?.();
      if (request.signal.aborted) {
        yield { type: "error", message: aborted(builder.message, carried, options.pricing) };
        return;
      }
      const error = idle
        ? new StreamInterruptedError("idle", `the stream sent no data for ${options.idleTimeoutMs} ms`)
        : thrown;
      const { info, retry, delayMs: serverDelayMs } = classifyError(options.provider, error);
      if (retry && retries < options.maxRetries) {
        const delayMs = serverDelayMs ?? backoffMs(options.retryDelayMs, retries);
        yield {
          type: "retry",
          attempt: retries + 1,
          delayMs,
          reason: describeError(info),
          partial: builder.message,
        };
        if (!(await sleep(delayMs, request.signal))) {
          yield { type: "error", message: aborted(builder.message, carried, options.pricing) };
          return;
        }
        addUsage(carried, builder.message.usage);
        builder = newBuilder(request, options);
        continue;
      }
      yield { type: "error", message: failed(builder.message, info, retries, carried, options.pricing) };
      return;
    } finally {
      request.signal.removeEventListener("abort", onAbort);
      generator.return(undefined as unknown as StopReason).catch(() => {});
    }
  }
}

function newBuilder(request: StreamRequest, options: RunnerOptions): MessageBuilder {
  return new MessageBuilder(request.model.provider, request.model.id, options.now(), options.idPrefix);
}

/** Awaits the next value; past `timeoutMs` calls `onTimeout` (which aborts the request) and throws. */
async function nextWithin<T, R>(
  generator: AsyncGenerator<T, R>,
  timeoutMs: number | undefined,
  onTimeout: () => void,
): Promise<IteratorResult<T, R>> {
  const next = generator.next();
  if (timeoutMs === undefined) return next;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new StreamInterruptedError("idle", `no data for ${timeoutMs} ms`));
    }, timeoutMs);
  });
  next.catch(() => {});
  try {
    return await Promise.race([next, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function settleUsage(
  message: AssistantMessage,
  carried: Usage,
  pricing: ModelPricing | undefined,
): AssistantMessage {
  const usage: Usage = addUsage(structuredClone(carried), message.usage);
  message.usage = priceUsage(usage, pricing);
  // No usage on the wire: the tokens are unknown, so is the cost (0 would let a budget pass unseen).
  if (message.usageMissing) message.usage.costUnknown = true;
  return message;
}

function failed(
  partial: AssistantMessage,
  info: ProviderErrorInfo,
  retries: number,
  carried: Usage,
  pricing: ModelPricing | undefined,
): AssistantMessage {
  const suffix = retries > 0 ? ` (after ${retries} ${retries === 1 ? "retry" : "retries"})` : "";
  const message = settleUsage(partial, carried, pricing);
  message.stopReason = "error";
  message.errorMessage = `${describeError(info)}${suffix}`;
  message.error = info;
  return message;
}

function aborted(
  partial: AssistantMessage,
  carried: Usage,
  pricing: ModelPricing | undefined,
): AssistantMessage {
  const message = settleUsage(partial, carried, pricing);
  message.stopReason = "aborted";
  message.errorMessage = "aborted";
  return message;
}

/** Resolves true after `ms`, or false as soon as the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
