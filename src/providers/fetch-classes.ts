/**
 * `Headers`, `Response` and `FormData` without Node's fetch (undici), for the provider SDKs and
 * ./http-fetch.ts.
 *
 * Node defines those globals lazily, and the first touch of any of them loads undici whole, which
 * loads `node:http2`, which loads `node:tls`, whose load starts parsing Node's ~150 bundled root
 * certificates on a thread of its own. Measured on this 2-core machine: a first `new Headers()`
 * takes 40-55 ms of the main thread and 17 MB of memory, and the certificates another 30-40 ms of
 * CPU beside it, all of it on the way to a run's first model request, and freed again at its exit.
 * The SDKs touch them for every request (a `Headers` built for each, `body instanceof FormData`),
 * and http-fetch.ts answered with a `Response`; a run against an `http://` endpoint (a local model
 * server, a proxy, the benchmarks' mock) needs none of undici, and one against an https API needs
 * `node:https` only. The bundles (rolldown.config.ts) give the SDKs these classes in place of the
 * globals; the library's own modules use them directly. The openai SDK also reads the property
 * descriptor of `globalThis.Headers` by name when it loads (its log redaction lists the built-ins it
 * trusts), which a bundler cannot redirect and which makes Node load undici to answer: the runner's
 * own processes (the CLI's run, the action's run child) make `globalThis.Headers` FetchHeaders
 * first (`useFetchHeadersGlobally`). A library caller's process keeps Node's.
 *
 * - `FetchHeaders`: the Fetch standard's `Headers` as a client uses it: names checked and lowercased,
 *   values trimmed of HTTP whitespace and refused with NUL, CR or LF, `append` joining with ", "
 *   (`set-cookie` values kept apart for `getSetCookie`), iteration sorted by name.
 * - `FetchResponse`: a `Response` over a web `ReadableStream`: `status` (200-599), `ok`, `headers`,
 *   `body`, `bodyUsed` (set by its own readers: a stream read through `body` directly is not seen),
 *   `text`, `json`, `arrayBuffer`, `bytes`, `blob`, `clone`.
 * - `LazyFormData`: Node's `FormData`, loaded when one is made.
 *
 * `instanceof` any of them is also true of Node's own objects (asked by `Symbol.toStringTag`, which
 * loads nothing), so a `Headers` or `Response` of `globalThis.fetch` (http-fetch's fallback) is
 * taken for one.
 */

/** What `new FetchHeaders(init)` takes: another Headers (ours or Node's), pairs, or a record. */
export type FetchHeadersInit =
  | FetchHeaders
  | Headers
  | Iterable<readonly [string, string] | readonly string[]>
  | Record<string, string | readonly string[]>;

/** The characters of a header name (RFC 9110's token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** HTTP whitespace at either end of a value, which the standard strips. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;

function isTagged(value: unknown, tag: string): boolean {
  return (
    typeof value === "object" && value !== null && Object.prototype.toString.call(value) === `[object ${tag}]`
  );
}

function headerName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: "${text}" is not a valid header name`);
  return text.toLowerCase();
}

function headerValue(name: string, value: string): string {
  const text = String(value).replace(EDGE_WHITESPACE, "");
  if (FORBIDDEN_IN_VALUE.test(text))
    throw new TypeError(`Headers: the value of "${name}" holds NUL, CR or LF`);
  return text;
}

export class FetchHeaders {
  readonly #values = new Map<string, string>();
  readonly #cookies: string[] = [];

  constructor(init?: FetchHeadersInit | null) {
    if (init === undefined || init === null) return;
    if (typeof init !== "object") throw new TypeError("Headers: init must be an object");
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<readonly string[]>) {
        if (typeof pair !== "object" || pair === null || pair.length !== 2) {
          throw new TypeError("Headers: each header must be a [name, value] pair");
        }
        this.append(pair[0] as string, pair[1] as string);
      }
      return;
    }
    for (const [name, value] of Object.entries(init)) this.append(name, String(value));
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return isTagged(value, "Headers");
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }

  append(name: string, value: string): void {
    const key = headerName(name);
    const text = headerValue(key, value);
    if (key === "set-cookie") this.#cookies.push(text);
    const had = this.#values.get(key);
    this.#values.set(key, had === undefined ? text : `${had}, ${text}`);
  }

  set(name: string, value: string): void {
    const key = headerName(name);
    const text = headerValue(key, value);
    if (key === "set-cookie") this.#cookies.splice(0, this.#cookies.length, text);
    this.#values.set(key, text);
  }

  get(name: string): string | null {
    return this.#values.get(headerName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(headerName(name));
  }

  delete(name: string): void {
    const key = headerName(name);
    if (key === "set-cookie") this.#cookies.length = 0;
    this.#values.delete(key);
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  forEach(callback: (value: string, name: string, headers: FetchHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) {
      if (name === "set-cookie") for (const cookie of this.#cookies) yield [name, cookie];
      else yield [name, this.#values.get(name) as string];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

export interface FetchResponseInit {
  status?: number;
  statusText?: string;
  headers?: FetchHeadersInit;
}

type BodySource = ReadableStream<Uint8Array> | string | Uint8Array | null;

export class FetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: FetchHeaders;
  readonly url = "";
  readonly redirected = false;
  readonly type = "default";
  #body: ReadableStream<Uint8Array> | null;
  #used = false;

  constructor(body: BodySource = null, init: FetchResponseInit = {}) {
    const status = init.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new RangeError(`Response: status ${status} is outside 200-599`);
    }
    this.status = status;
    this.statusText = init.statusText ?? "";
    this.headers = new FetchHeaders(init.headers);
    this.#body =
      body === null ? null : typeof body === "object" && "getReader" in body ? body : streamOf(body);
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return isTagged(value, "Response");
  }

  get [Symbol.toStringTag](): string {
    return "Response";
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#used) throw new TypeError("Response: the body has already been read");
    this.#used = true;
    if (!this.#body) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    let length = 0;
    const reader = this.#body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.byteLength;
    }
    const whole = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      whole.set(chunk, at);
      at += chunk.byteLength;
    }
    return whole;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    const type = this.headers.get("content-type") ?? "";
    return new Blob([await this.bytes()], { type });
  }

  clone(): FetchResponse {
    if (this.#used || this.#body?.locked) throw new TypeError("Response: a body being read cannot be cloned");
    const init = { status: this.status, statusText: this.statusText, headers: this.headers };
    if (!this.#body) return new FetchResponse(null, init);
    const [mine, theirs] = this.#body.tee();
    this.#body = mine;
    return new FetchResponse(theirs, init);
  }
}

function streamOf(body: string | Uint8Array): ReadableStream<Uint8Array> {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/**
 * Makes `globalThis.Headers` FetchHeaders. For the runner's own processes only (see the module
 * comment). An assignment, which keeps the property's attributes and leaves Node's lazy value
 * unread: `Object.defineProperty` would read it first, and so load undici.
 */
export function useFetchHeadersGlobally(): void {
  globalThis.Headers = FetchHeaders as unknown as typeof Headers;
}

/** Node's `FormData`, loaded (with undici) only when one is made. */
export class LazyFormData {
  constructor(...args: ConstructorParameters<typeof FormData>) {
    // biome-ignore lint/correctness/noConstructorReturn: the instance is Node's own FormData.
    return new globalThis.FormData(...args) as unknown as LazyFormData;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return isTagged(value, "FormData");
  }
}
