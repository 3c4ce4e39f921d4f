import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { type ChatOverflowStyle, countPromptTokens, overflowAnswer } from "./context-window.ts";
import {
  anthropicFrames,
  chatDocument,
  chatFrames,
  type Frame,
  type ReplyContent,
  responsesFrames,
} from "./wire.ts";

export type { MockToolCall, MockUsage, ReplyContent } from "./wire.ts";

export type WireFormat = "anthropic" | "responses" | "chat";

/** One scripted reply: content plus optional faults. With no faults and no delays it is served at once. */
export interface MockReply extends ReplyContent {
  /** Answer with this HTTP status and an error body in the endpoint's format instead of a stream. */
  status?: number;
  /** `retry-after` header (seconds) for error statuses. */
  retryAfter?: number;
  /** Provider error type/code for error statuses (e.g. "insufficient_quota"). Default from the status. */
  errorType?: string;
  errorMessage?: string;
  /** Wait this long before sending the headers. */
  firstByteDelayMs?: number;
  /** After the headers and first frame, wait this long before the rest (an idle stream). */
  stallMs?: number;
  /** Delay between frames (none after the last). Default 0. */
  chunkDelayMs?: number;
  /** Reset the connection before any response (no status, no headers). */
  reset?: boolean;
  /** Destroy the connection after the first frame of the first tool call's arguments ("tool") or text ("text"). */
  cut?: "tool" | "text";
  /** How `cut` ends the connection: a plain close (FIN, default) or a reset (RST, ECONNRESET). */
  cutBy?: "close" | "reset";
  /** Answer with an HTML page (a proxy's "502 Bad Gateway") with this status, instead of the API. */
  htmlStatus?: number;
  /** After the first frames, send an event whose data is not JSON (a proxy mangling the stream). */
  invalidSse?: boolean;
  /** Interleave keep-alives between the frames: SSE comments, events without data, `event: ping`. */
  pings?: boolean;
  /** Chat Completions: answer one JSON document instead of a stream (a server ignoring `stream: true`). */
  jsonDocument?: boolean;
  /** Write the stream this many bytes at a time (`chunkDelayMs` apart, else one event-loop turn): a drip. */
  dripBytes?: number;
}

export interface RecordedRequest {
  /** 0-based, across all endpoints. */
  index: number;
  format: WireFormat;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
  /** Bytes of the request body as sent. */
  bytes: number;
  /** The prompt's tokens by the mock's own count, when it enforces a context window. */
  promptTokens?: number;
  /** True when the prompt was over the window and refused with the format's context-length error. */
  overflowed?: boolean;
}

/** A fixed list (request i gets entry i; past the end, the last one) or a function of the request. */
export type MockScript = MockReply[] | ((index: number, request: RecordedRequest) => MockReply);

/** A loopback URL nothing listens on: every connection is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export interface MockLlm {
  /** http://127.0.0.1:PORT (https:// with `tls`) — use `${url}` for ANTHROPIC_BASE_URL and `${url}/v1` for OPENAI_BASE_URL. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A loopback LLM server speaking Anthropic Messages SSE (`/v1/messages`), OpenAI Responses SSE
 * (`/v1/responses`) and OpenAI Chat Completions SSE (`/v1/chat/completions`), each reply scripted,
 * with fault injection. Listens on 127.0.0.1, port 0.
 */
export async function startMockLlm(options: {
  script: MockScript;
  recordBodies?: boolean;
  /**
   * Enforce a context window of this many tokens (the mock's own count, `countPromptTokens`): a
   * prompt over it is refused with the format's real context-length error (the script is not
   * asked); every other reply reports the counted prompt tokens as its input usage.
   */
  contextWindow?: number;
  /** The shape of the Chat Completions refusal: OpenAI's (default), vLLM's or llama.cpp server's. */
  chatOverflow?: ChatOverflowStyle;
  /** Serve HTTPS with this key and certificate (PEM) instead of HTTP: `url` is then https://. */
  tls?: { key: string; cert: string };
}): Promise<MockLlm> {
  const requests: RecordedRequest[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => res.destroy());
  };
  const server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const format = formatOf(req.url ?? "");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (!format || req.method !== "POST") {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(`{"error":{"message":"not found: ${req.url}"}}`);
      return;
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    } catch {
      res.writeHead(400).end(`{"error":{"message":"invalid JSON body"}}`);
      return;
    }
    const request: RecordedRequest = {
      index: requests.length,
      format,
      path: req.url ?? "",
      headers: req.headers,
      body: options.recordBodies === false ? {} : body,
      bytes: chunks.reduce((sum, chunk) => sum + chunk.length, 0),
    };
    requests.push(request);
    if (options.contextWindow !== undefined) {
      const tokens = countPromptTokens(format, body);
      request.promptTokens = tokens;
      if (tokens > options.contextWindow) {
        request.overflowed = true;
        const answer = overflowAnswer(format, tokens, options.contextWindow, options.chatOverflow);
        if ("stream" in answer)
          res.writeHead(200, { "content-type": "text/event-stream" }).end(answer.stream);
        else
          res
            .writeHead(answer.status, { "content-type": "application/json" })
            .end(JSON.stringify(answer.body));
        return;
      }
    }
    const script = options.script;
    const scripted =
      typeof script === "function"
        ? script(request.index, request)
        : script[Math.min(request.index, script.length - 1)];
    const reply: MockReply | undefined =
      scripted && request.promptTokens !== undefined
        ? { ...scripted, usage: { ...scripted.usage, input: request.promptTokens, cacheRead: 0 } }
        : scripted;
    if (!reply) {
      res.writeHead(500).end(`{"error":{"message":"the mock script has no reply"}}`);
      return;
    }
    const unstored = format === "responses" ? unstoredReasoning(body) : undefined;
    if (unstored !== undefined) {
      res.writeHead(404, { "content-type": "application/json" }).end(
        JSON.stringify({
          error: {
            message: `Item with id '${unstored}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
            type: "invalid_request_error",
            param: "input",
            code: null,
          },
        }),
      );
      return;
    }
    const encrypted = Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content");
    await serve(res, format, reply, String(body.model ?? "mock-model"), request.index, encrypted);
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * As the real Responses API does: with `store: false`, a reasoning item sent back without its
 * `encrypted_content` cannot be looked up, and the request fails (404). Returns that item's id.
 */
function unstoredReasoning(body: Record<string, unknown>): string | undefined {
  if (body.store !== false || !Array.isArray(body.input)) return undefined;
  for (const item of body.input as Record<string, unknown>[]) {
    if (item?.type === "reasoning" && typeof item.encrypted_content !== "string") return String(item.id);
  }
  return undefined;
}

function formatOf(url: string): WireFormat | undefined {
  const path = url.split("?")[0] ?? "";
  if (path.endsWith("/messages")) return "anthropic";
  if (path.endsWith("/responses")) return "responses";
  if (path.endsWith("/chat/completions")) return "chat";
  return undefined;
}

async function serve(
  res: ServerResponse,
  format: WireFormat,
  reply: MockReply,
  model: string,
  n: number,
  encrypted: boolean,
): Promise<void> {
  if (reply.firstByteDelayMs) await delay(reply.firstByteDelayMs, res);
  if (res.destroyed) return;
  if (reply.reset) {
    res.socket?.resetAndDestroy();
    return;
  }
  if (reply.htmlStatus !== undefined) {
    res.writeHead(reply.htmlStatus, { "content-type": "text/html" }).end(HTML_PAGE(reply.htmlStatus));
    return;
  }
  if (reply.jsonDocument && format === "chat") {
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify(chatDocument(reply, model, n)));
    return;
  }
  if (reply.status !== undefined && reply.status >= 400) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (reply.retryAfter !== undefined) headers["retry-after"] = String(reply.retryAfter);
    res.writeHead(reply.status, headers).end(JSON.stringify(errorBody(format, reply)));
    return;
  }
  const frames: Frame[] =
    format === "anthropic"
      ? anthropicFrames(reply, model, n)
      : format === "responses"
        ? responsesFrames(reply, model, n, encrypted)
        : chatFrames(reply, model, n);
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  let cutArmed = reply.cut !== undefined;
  for (const [i, frame] of frames.entries()) {
    if (res.destroyed) return;
    await write(res, frame.data, reply);
    if (cutArmed && frame.tag === reply.cut) {
      cutArmed = false;
      await delay(20, res);
      if (reply.cutBy === "reset") res.socket?.resetAndDestroy();
      else res.socket?.destroy();
      return;
    }
    if (i === 1 && reply.invalidSse) await write(res, INVALID_FRAME[format], reply);
    if (reply.pings) await write(res, PINGS[format], reply);
    if (i === 0 && reply.stallMs) await delay(reply.stallMs, res);
    // Between frames only: a server ends the response with its last frame, and a client that
    // reads to the end must not look slower than one that stops at the last event.
    if (reply.chunkDelayMs && !reply.dripBytes && i < frames.length - 1) await delay(reply.chunkDelayMs, res);
  }
  res.end();
}

/** Writes `data`, all at once or `dripBytes` at a time (splitting multi-byte characters too). */
async function write(res: ServerResponse, data: string, reply: MockReply): Promise<void> {
  if (!reply.dripBytes) {
    res.write(data);
    return;
  }
  const bytes = Buffer.from(data, "utf8");
  for (let i = 0; i < bytes.length && !res.destroyed; i += reply.dripBytes) {
    res.write(bytes.subarray(i, i + reply.dripBytes));
    if (reply.chunkDelayMs) await delay(reply.chunkDelayMs, res);
    else await new Promise((resolve) => setImmediate(resolve));
  }
}

/** What nginx sends when the upstream is down. */
const HTML_PAGE = (status: number) =>
  `<html>\r\n<head><title>${status} Bad Gateway</title></head>\r\n<body>\r\n<center><h1>${status} Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;

/** A frame cut in the middle of its JSON, as a proxy that mangles streams would send it. */
const INVALID_FRAME: Record<WireFormat, string> = {
  anthropic:
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_de\n\n',
  responses: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":\n\n',
  chat: 'data: {"id":"chatcmpl-x","choices":[{"index":0,"delta":{"content":\n\n',
};

/** Keep-alives real servers and proxies send: comments, events without data, pings. */
const PINGS: Record<WireFormat, string> = {
  anthropic: ': keep-alive\n\nevent: ping\ndata: {"type": "ping"}\n\ndata:\n\n',
  responses: ": keep-alive\n\ndata:\n\n: OPENROUTER PROCESSING\r\n\r\n",
  chat: ": keep-alive\n\ndata:\n\n: OPENROUTER PROCESSING\r\n\r\n",
};

function errorBody(format: WireFormat, reply: MockReply): unknown {
  const status = reply.status ?? 500;
  const type =
    reply.errorType ??
    (status === 429
      ? format === "anthropic"
        ? "rate_limit_error"
        : "rate_limit_exceeded"
      : status === 529
        ? "overloaded_error"
        : status === 401
          ? format === "anthropic"
            ? "authentication_error"
            : "invalid_api_key"
          : format === "anthropic"
            ? "api_error"
            : "server_error");
  const message = reply.errorMessage ?? `mock ${status} ${type}`;
  if (format === "anthropic") return { type: "error", error: { type, message } };
  return { error: { message, type, code: type, param: null } };
}

/** Waits `ms`, returning early when the client goes away. */
function delay(ms: number, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      res.off("close", done);
      resolve();
    }
    res.on("close", done);
  });
}
