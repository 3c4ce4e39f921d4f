import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, test, vi } from "vitest";
import { FetchResponse } from "../src/providers/fetch-classes.ts";
import { createHttpFetch } from "../src/providers/http-fetch.ts";
import { closedPortUrl } from "./mock-llm/server.ts";

/**
 * The providers' fetch over node:http (src/providers/http-fetch.ts), against a loopback server: what
 * it sends, a body streamed as it arrives, the failures fetch reports (refused, reset, aborted) in
 * fetch's shapes, and what it hands to `globalThis.fetch` (redirects, stream bodies, a proxy).
 */
let server: Server | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server?.closeAllConnections();
  server = undefined;
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

async function serve(handle: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void) {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const one = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      seen.push(one);
      handle(req, res, one);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A fallback that records what it was handed and then does it with the real fetch. */
function countingFallback() {
  const calls: string[] = [];
  const fallback: typeof fetch = (input, init) => {
    calls.push(String(input instanceof Request ? input.url : input));
    return fetch(input, init);
  };
  return { calls, fallback };
}

/** `error` is fetch's: a TypeError with `message`, the socket's error (with `code`) as its cause. */
function expectFetchError(error: unknown, message: string, code: string): void {
  expect(error).toBeInstanceOf(TypeError);
  expect((error as Error).message).toBe(message);
  expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe(code);
}

async function readAll(response: Response): Promise<string> {
  return Buffer.from(await response.arrayBuffer()).toString("utf8");
}

describe("httpFetch", () => {
  test("sends the method, the headers and the body with its length, and answers a Response", async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(201, "Made", { "content-type": "application/json", "x-request-id": "req_1" });
      res.end('{"ok":true}');
    });
    const { calls, fallback } = countingFallback();
    const response = await createHttpFetch(fallback)(`${url}/v1/messages?beta=true`, {
      method: "post",
      headers: new Headers({ "x-api-key": "k", "content-type": "application/json" }),
      body: '{"prompt":"héllo"}',
    });
    // fetch-classes.ts's, which `instanceof Response` in the bundles (and in the SDKs there) accepts.
    expect(response).toBeInstanceOf(FetchResponse);
    expect(Object.prototype.toString.call(response)).toBe("[object Response]");
    expect([response.status, response.statusText, response.ok]).toEqual([201, "Made", true]);
    expect(response.headers.get("x-request-id")).toBe("req_1");
    expect(await response.json()).toEqual({ ok: true });
    expect(seen[0]).toMatchObject({
      method: "POST",
      url: "/v1/messages?beta=true",
      body: '{"prompt":"héllo"}',
    });
    expect(seen[0]?.headers["x-api-key"]).toBe("k");
    expect(seen[0]?.headers["content-length"]).toBe(String(Buffer.byteLength('{"prompt":"héllo"}')));
    // Neither undici's browser headers nor a request for compression: it is not fetch that sent it.
    expect(seen[0]?.headers["sec-fetch-mode"]).toBeUndefined();
    expect(seen[0]?.headers["accept-encoding"]).toBeUndefined();
    expect(calls).toEqual([]);
  });

  test("streams the body: the first event is read while the server still holds the rest", async () => {
    let finish: () => void = () => {};
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      finish = () => res.end("data: two\n\n");
    });
    const response = await createHttpFetch()(url, { method: "POST", body: "{}" });
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(Buffer.from(first?.value ?? []).toString()).toBe("data: one\n\n");
    finish();
    const second = await reader?.read();
    expect(Buffer.from(second?.value ?? []).toString()).toBe("data: two\n\n");
    expect((await reader?.read())?.done).toBe(true);
  });

  test("a refused connection rejects as fetch does: TypeError, the socket's error as cause", async () => {
    const error = await createHttpFetch()(await closedPortUrl(), { method: "POST", body: "{}" }).catch(
      (e: unknown) => e,
    );
    expectFetchError(error, "fetch failed", "ECONNREFUSED");
  });

  test("a connection reset in the body fails the body with TypeError('terminated'), cause ECONNRESET", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n", () => setTimeout(() => res.socket?.resetAndDestroy(), 20));
    });
    const response = await createHttpFetch()(url, { method: "POST", body: "{}" });
    const error = await readAll(response).catch((e: unknown) => e);
    expectFetchError(error, "terminated", "ECONNRESET");
  });

  test("a body shorter than its content-length fails instead of ending early", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("only part", () => res.socket?.end());
    });
    const response = await createHttpFetch()(url, { method: "POST", body: "{}" });
    await expect(readAll(response)).rejects.toThrow("terminated");
  });

  test("an abort before the answer rejects with the signal's reason; during the body, fails the body with it", async () => {
    const { url } = await serve((req, res) => {
      if (req.url === "/slow") return; // never answers
      res.writeHead(200);
      res.write("part");
    });
    const early = new AbortController();
    const pending = createHttpFetch()(`${url}/slow`, { method: "POST", body: "{}", signal: early.signal });
    setTimeout(() => early.abort(new Error("stopped early")), 20);
    await expect(pending).rejects.toThrow("stopped early");

    const late = new AbortController();
    const response = await createHttpFetch()(url, { method: "POST", body: "{}", signal: late.signal });
    const reader = response.body?.getReader();
    await reader?.read();
    late.abort(new Error("stopped in the body"));
    await expect(reader?.read()).rejects.toThrow("stopped in the body");

    const already = AbortSignal.abort(new Error("never sent"));
    await expect(createHttpFetch()(url, { method: "POST", body: "{}", signal: already })).rejects.toThrow(
      "never sent",
    );
  });

  test("a body the server compressed unasked is decompressed; 204 has none", async () => {
    const { url } = await serve((req, res) => {
      if (req.url === "/empty") {
        res.writeHead(204);
        res.end();
        return;
      }
      res.writeHead(200, { "content-encoding": "gzip" });
      res.end(gzipSync("data: zipped ✓\n\n"));
    });
    expect(await readAll(await createHttpFetch()(url, { method: "POST", body: "{}" }))).toBe(
      "data: zipped ✓\n\n",
    );
    const empty = await createHttpFetch()(`${url}/empty`, { method: "POST", body: "{}" });
    expect([empty.status, empty.body]).toEqual([204, null]);
  });

  test("a redirect is made again through fetch, which follows it", async () => {
    const { url, seen } = await serve((req, res) => {
      if (req.url === "/old") {
        res.writeHead(307, { location: "/new" });
        res.end();
        return;
      }
      res.writeHead(200);
      res.end(`moved: ${req.method}`);
    });
    const { calls, fallback } = countingFallback();
    const response = await createHttpFetch(fallback)(`${url}/old`, { method: "POST", body: "{}" });
    expect(await readAll(response)).toBe("moved: POST");
    expect(calls).toEqual([`${url}/old`]);
    // Ours, then fetch's request and the one it followed.
    expect(seen.map((one) => one.url)).toEqual(["/old", "/old", "/new"]);
    expect(seen[2]?.headers["sec-fetch-mode"]).toBe("cors");

    const manual = await createHttpFetch(fallback)(`${url}/old`, {
      method: "POST",
      body: "{}",
      redirect: "manual",
    });
    expect([manual.status, manual.headers.get("location")]).toEqual([307, "/new"]);
  });

  test("a stream body, a Request object, a proxy and a URL that is not http(s) go to fetch", async () => {
    const { url } = await serve((_req, res) => res.end("ok"));
    const { calls, fallback } = countingFallback();
    const ours = createHttpFetch(fallback);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("{}"));
        controller.close();
      },
    });
    await ours(url, { method: "POST", body: stream, duplex: "half" } as RequestInit);
    await ours(new Request(url, { method: "POST", body: "{}" }));
    await ours("data:text/plain,hello");
    vi.stubEnv("NODE_USE_ENV_PROXY", "1");
    await ours(url, { method: "POST", body: "{}" });
    expect(calls).toEqual([url, `${url}/`, "data:text/plain,hello", url]);
  });
});
