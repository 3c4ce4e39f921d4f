import { describeBodyText } from "./classify-error.ts";
import { StreamInterruptedError } from "./errors.ts";

/** One server-sent event: its `event:` name, if any, and its parsed JSON data. */
export interface SseEvent {
  event: string | undefined;
  data: unknown;
}

export interface ReadEventsOptions {
  /**
   * Chat Completions: a server that ignored `stream: true` answers one JSON document; yield it as
   * the only event (its `choices[].message` reads like a delta). Default: false (invalid).
   */
  acceptJsonDocument?: boolean;
}

/** Bytes of a non-SSE body read to describe it (an HTML page's title). */
const DESCRIBE_BYTES = 4096;

/**
 * Reads a streaming response as server-sent events and yields each event's parsed JSON. Takes
 * what real servers and proxies send: comments and keep-alives, `event: ping`, events without
 * data, CR/LF/CRLF line ends, events split anywhere (inside a multi-byte character too), a last
 * event without its blank line; `[DONE]` ends the stream. Throws `StreamInterruptedError`:
 * `invalid` for a body that is not server-sent events (an HTML page, a JSON document) or an event
 * whose data is not JSON, `cut` when the connection breaks mid-body.
 */
export async function* readEvents(
  response: Response,
  options: ReadEventsOptions = {},
): AsyncGenerator<SseEvent> {
  const contentType = response.headers.get("content-type") ?? "";
  if (!response.body) throw invalid(`the response (${response.status}) has no body`);
  if (/html/i.test(contentType)) throw invalid(await notAStream(response, contentType));
  if (/json/i.test(contentType) && !/event-stream/i.test(contentType)) {
    if (!options.acceptJsonDocument) throw invalid(await notAStream(response, contentType));
    yield { event: undefined, data: parseData(await readBody(response), undefined) };
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let sniffed = false;
  let name: string | undefined;
  let data: string[] | undefined;
  let finished = false;
  try {
    while (true) {
      const chunk = await readChunk(reader);
      buffer += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      if (!sniffed && buffer.trim() !== "") {
        sniffed = true;
        if (/^\s*</.test(buffer))
          throw invalid(`it sent ${describeBodyText(buffer, contentType)}, not an event stream`);
      }
      // Mid-stream, a trailing "\r" may be the first half of a "\r\n": it waits for the next chunk.
      const lines = buffer.split(chunk.done ? /\r\n|\r|\n/ : /\r\n|\r(?!$)|\n/);
      buffer = chunk.done ? "" : (lines.pop() ?? "");
      if (chunk.done && lines.at(-1) !== "") lines.push("");
      for (const line of lines) {
        if (line !== "") {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") name = value;
          else if (field === "data") data = data === undefined ? [value] : [...data, value];
          continue;
        }
        const payload = data?.join("\n");
        const event = name;
        name = undefined;
        data = undefined;
        if (payload === undefined || payload.trim() === "" || event === "ping") continue;
        if (payload.trim() === "[DONE]") {
          finished = true;
          return;
        }
        yield { event, data: parseData(payload, event) };
      }
      if (chunk.done) {
        finished = true;
        return;
      }
    }
  } finally {
    if (!finished) reader.cancel().catch(() => {});
  }
}

async function readChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<{ done: true; value?: Uint8Array | undefined } | { done: false; value: Uint8Array }> {
  try {
    return await reader.read();
  } catch (error) {
    throw new StreamInterruptedError("cut", `the connection broke mid-stream (${causeText(error)})`, {
      cause: error,
    });
  }
}

function parseData(payload: string, event: string | undefined): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    const snippet = payload.length > 80 ? `${payload.slice(0, 80)}…` : payload;
    throw invalid(
      `an event${event ? ` ("${event}")` : ""} whose data is not JSON: ${JSON.stringify(snippet)}`,
    );
  }
}

function invalid(what: string): StreamInterruptedError {
  return new StreamInterruptedError("invalid", `the stream is not the API's server-sent events: ${what}`);
}

async function notAStream(response: Response, contentType: string): Promise<string> {
  const text = await readBody(response, DESCRIBE_BYTES).catch(() => "");
  return `it answered ${response.status} with ${describeBodyText(text, contentType)} (content-type ${contentType}), not an event stream`;
}

/** The body as text, at most `limit` bytes when given (the rest is cancelled). */
async function readBody(response: Response, limit = Number.POSITIVE_INFINITY): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    while (bytes < limit) {
      const chunk = await readChunk(reader);
      if (chunk.done) return text + decoder.decode();
      bytes += chunk.value.byteLength;
      text += decoder.decode(chunk.value, { stream: true });
    }
    return text;
  } finally {
    reader.cancel().catch(() => {});
  }
}

function causeText(error: unknown): string {
  let current: unknown = error;
  let text = String(error);
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    text = typeof code === "string" ? `${current.message} ${code}`.trim() : current.message || text;
    current = current.cause;
  }
  return text;
}
