/**
 * The `fetch` the provider SDKs are given: a request over `node:http`/`node:https` whose answer is
 * a `Response` with a streamed body (./fetch-classes.ts's, which loads no undici), falling back to
 * `globalThis.fetch` for whatever it does not do itself.
 *
 * Why not `globalThis.fetch`: Node's fetch (undici) parses HTTP with llhttp compiled to WebAssembly.
 * Its main function is compiled on a run's first answer (~7-10 ms, in the wait after it), and once a
 * few answers have gone through it V8 compiles it again with TurboFan on a worker thread: 160-220 ms
 * of CPU and 23-40 MB of compiler memory in a 20-turn session here, and a process whose run ends
 * meanwhile waits for that compile before it exits (Node joins its worker threads). `node:http`'s
 * parser is the same llhttp built into Node. Measured on this 2-core machine, 30 streamed requests:
 * 117-165 ms and 330-356 ms of CPU through fetch, 71-78 ms and 210-232 ms through this; peak RSS
 * 82 → 62 MB.
 *
 * What it does as fetch does: the method, headers and a string or byte body (its length sent); the
 * abort signal, before and during the body (rejecting or failing the body with the signal's reason);
 * a failure before the answer rejects with `TypeError("fetch failed")` and one during the body fails
 * it with `TypeError("terminated")`, each with the socket's error as `cause`; a body the server
 * compressed anyway (gzip, deflate, br) is decompressed. It asks for no compression itself.
 * What it leaves to `globalThis.fetch`: a `Request` object, a URL that is not http(s), any other
 * body (a stream, form data), a proxy (`NODE_USE_ENV_PROXY`, which only fetch honours on Node 22),
 * and redirects: an answer that redirects is dropped and the request made again through fetch, which
 * follows it (and strips the API key on a cross-origin hop) as the standard says.
 */
import type http from "node:http";
import type https from "node:https";
import type { Readable } from "node:stream";
import { FetchHeaders, type FetchHeadersInit, FetchResponse } from "./fetch-classes.ts";

type Fetch = typeof globalThis.fetch;
type FetchInit = NonNullable<Parameters<Fetch>[1]>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose `Response` has no body (the constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch for the SDKs (see the module comment). `fallback` is what it hands over to; default
 * `globalThis.fetch`, looked up at each call.
 */
export function createHttpFetch(fallback?: Fetch): Fetch {
  const handOver: Fetch = (input, init) => (fallback ?? globalThis.fetch)(input, init);
  return (input, init) => {
    const plan = planOf(input, init);
    if (!plan) return handOver(input, init);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return request(plan, init?.redirect, signal).then((answer) =>
      answer === "redirect" ? handOver(input, init) : answer,
    );
  };
}

interface Plan {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** What to send, or undefined for a request this fetch leaves to the fallback (a bad one included: it rejects it as fetch does). */
function planOf(input: Parameters<Fetch>[0], init: FetchInit | undefined): Plan | undefined {
  if (proxyConfigured() || (typeof input !== "string" && !(input instanceof URL))) return undefined;
  const url = URL.parse(String(input));
  if (url?.protocol !== "http:" && url?.protocol !== "https:") return undefined;
  const body = bodyBytes(init?.body);
  const method = (init?.method ?? "GET").toUpperCase();
  if (body === false || (body !== undefined && (method === "GET" || method === "HEAD"))) return undefined;
  const headers: Record<string, string> = {};
  try {
    new FetchHeaders(init?.headers as FetchHeadersInit | undefined).forEach((value, name) => {
      headers[name] = value;
    });
  } catch {
    return undefined;
  }
  // A body given whole to `end` goes with its content-length (node:http sets it), never chunked.
  return { url, method, headers, body };
}

/** The default: `createHttpFetch()` over `globalThis.fetch`. */
export const httpFetch: Fetch = createHttpFetch();

/**
 * Loads now what a request to `baseUrl` will need, instead of on the first request's way:
 * `node:http` (or `node:https`, whose `node:tls` starts parsing the root certificates on a thread of
 * its own) and the web streams a body is read through. A provider's preload, while the run starts.
 */
export function warmTransport(baseUrl: string): void {
  const protocol = URL.parse(baseUrl)?.protocol;
  if (protocol === "https:") httpsModule();
  else if (protocol === "http:") httpModule();
  else return;
  void globalThis.ReadableStream;
}

function request(
  plan: Plan,
  redirect: FetchInit["redirect"],
  signal: AbortSignal | undefined,
): Promise<Response | "redirect"> {
  const { url, method, headers, body } = plan;
  const client = url.protocol === "https:" ? httpsModule() : httpModule();
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method, headers, ...(signal && { signal }) }, (res) => {
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status) && res.headers.location !== undefined && redirect !== "manual") {
        res.resume();
        const cause = new Error(`the answer was a redirect (HTTP ${status}) and redirect is "error"`);
        if (redirect === "error") reject(new TypeError("fetch failed", { cause }));
        else resolve("redirect");
        return;
      }
      try {
        const response = new FetchResponse(
          NULL_BODY.has(status) || method === "HEAD" ? null : bodyStream(res, signal),
          { status, statusText: res.statusMessage ?? "", headers: headersOf(res.rawHeaders) },
        );
        // What the SDKs read of a Response, FetchResponse has (./fetch-classes.ts).
        resolve(response as unknown as Response);
      } catch (error) {
        res.destroy();
        reject(new TypeError("fetch failed", { cause: error }));
      }
    });
    // `on`, not `once`: a socket can fail again after the first error, and an unheard one would throw.
    req.on("error", (error) => {
      reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
    });
    req.end(body);
  });
}

/** The answer's body as a web stream, read as the consumer pulls (the socket pauses meanwhile). */
function bodyStream(res: http.IncomingMessage, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const source = decoded(res);
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      source.on("data", (chunk: Buffer) => {
        // A body cancelled (or failed) may still see what was read before.
        if (settled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.once("end", () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      // An answer cut short (a reset, a close before its length) ends in an error (node:http's
      // "aborted", ECONNRESET, also when the request is destroyed): it fails the body as fetch's does.
      source.on("error", (error) => {
        if (settled) return;
        settled = true;
        controller.error(signal?.aborted ? signal.reason : new TypeError("terminated", { cause: error }));
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      settled = true;
      res.destroy();
      if (source !== res) source.destroy();
    },
  });
}

/** `res`, or a stream of it decompressed when the server compressed it unasked. */
function decoded(res: http.IncomingMessage): Readable {
  const encoding = res.headers["content-encoding"]?.trim().toLowerCase();
  if (!encoding || encoding === "identity") return res;
  const zlib = process.getBuiltinModule("node:zlib");
  const inflate =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
      : encoding === "deflate"
        ? zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : encoding === "br"
          ? zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
          : undefined;
  if (!inflate) return res;
  res.on("error", (error) => inflate.destroy(error));
  return res.pipe(inflate);
}

function headersOf(raw: string[]): FetchHeaders {
  const headers = new FetchHeaders();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/**
 * `node:http` and `node:https` as CommonJS modules: an ESM `import` of `node:http` builds its
 * namespace from every export, and reading the lazy `WebSocket` export loads undici (40-55 ms
 * here, see ./fetch-classes.ts). `node:https` only when a URL needs it: it loads `node:tls`.
 */
function httpModule(): typeof http {
  return process.getBuiltinModule("node:http");
}

function httpsModule(): typeof https {
  return process.getBuiltinModule("node:https");
}

/** The body as bytes; undefined for none; false for a kind this fetch leaves to the fallback. */
function bodyBytes(body: FetchInit["body"]): Buffer | undefined | false {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return false;
}

/** Node 22 honours `NODE_USE_ENV_PROXY` (or `--use-env-proxy`) in fetch only: such a run keeps it. */
function proxyConfigured(): boolean {
  return (
    !!process.env.NODE_USE_ENV_PROXY ||
    process.execArgv.includes("--use-env-proxy") ||
    (process.env.NODE_OPTIONS ?? "").includes("--use-env-proxy")
  );
}
