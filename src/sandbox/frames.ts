/**
 * The framing of the sandbox session's pipes, both ways: each message is an 8-byte head (the
 * header's length and the payload's length, unsigned 32-bit little-endian), a JSON header, and a
 * payload of raw bytes (file content), so content never goes through JSON or base64.
 *
 * SERIALISED: the exec server runs both functions from their source text, so their bodies use
 * nothing but their parameters and globals (Buffer, JSON, Error).
 */

/** Limits a reader enforces; a frame past them is an error (the other side is broken or hostile). */
export interface FrameLimits {
  /** Bytes of one JSON header. */
  maxHeaderBytes: number;
  /** Bytes of one payload. */
  maxDataBytes: number;
}

/**
 * The head, header and payload of one message, to be written in order: one buffer for a message
 * of up to 64 KiB (one write, and one read on the other side, instead of three: a command's
 * start and end and most file replies are small), else the three parts, so that a large payload
 * is not copied.
 */
export function encodeFrame(header: unknown, data?: Uint8Array): Buffer[] {
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const head = Buffer.allocUnsafe(8);
  const dataLength = data ? data.length : 0;
  head.writeUInt32LE(json.length, 0);
  head.writeUInt32LE(dataLength, 4);
  if (8 + json.length + dataLength <= 65536) {
    return [dataLength > 0 && data ? Buffer.concat([head, json, data]) : Buffer.concat([head, json])];
  }
  return data && dataLength > 0
    ? [head, json, Buffer.from(data.buffer, data.byteOffset, data.length)]
    : [head, json];
}

/**
 * A push parser: feed it chunks as they arrive; it calls `onFrame` once per complete message.
 * Chunks are joined only when a message is complete, so a large payload is copied once; when
 * `destination` gives a buffer for a message (asked once its header is read), the payload is
 * copied into it as it arrives instead, and `onFrame` gets a view of it: no allocation per
 * message. Throws (and stays broken) on a frame past `limits` or a header that is not JSON.
 */
export function createFrameReader(
  onFrame: (header: unknown, data: Buffer) => void,
  limits: FrameLimits,
  destination?: (header: unknown, length: number) => Buffer | undefined,
): (chunk: Buffer) => void {
  let chunks: Buffer[] = [];
  let buffered = 0;
  let head: { header: number; data: number } | undefined;
  let header: unknown;
  let parsed = false;
  let sink: Buffer | undefined;
  let filled = 0;
  let broken: Error | undefined;
  const take = (n: number): Buffer => {
    const first = chunks[0] as Buffer;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) chunks.shift();
      else chunks[0] = first.subarray(n);
    } else {
      const all = Buffer.concat(chunks, buffered);
      out = all.subarray(0, n);
      chunks = all.length > n ? [all.subarray(n)] : [];
    }
    buffered -= n;
    return out;
  };
  const emit = (data: Buffer) => {
    const done = header;
    head = undefined;
    header = undefined;
    parsed = false;
    sink = undefined;
    filled = 0;
    onFrame(done, data);
  };
  return (chunk) => {
    if (broken) throw broken;
    chunks.push(chunk);
    buffered += chunk.length;
    try {
      for (;;) {
        if (!head) {
          if (buffered < 8) return;
          const bytes = take(8);
          head = { header: bytes.readUInt32LE(0), data: bytes.readUInt32LE(4) };
          if (head.header > limits.maxHeaderBytes || head.data > limits.maxDataBytes) {
            throw new Error(`a frame of ${head.header} + ${head.data} bytes is over the limit`);
          }
        }
        if (!parsed) {
          if (buffered < head.header) return;
          header = JSON.parse(take(head.header).toString("utf8")) as unknown;
          parsed = true;
          const given = head.data > 0 && destination ? destination(header, head.data) : undefined;
          sink = given && given.length >= head.data ? given : undefined;
        }
        if (sink) {
          while (filled < head.data && chunks.length > 0) {
            const piece = take(Math.min(head.data - filled, (chunks[0] as Buffer).length));
            piece.copy(sink, filled);
            filled += piece.length;
          }
          if (filled < head.data) return;
          emit(sink.subarray(0, head.data));
          continue;
        }
        if (buffered < head.data) return;
        emit(head.data > 0 ? take(head.data) : Buffer.alloc(0));
      }
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error));
      throw broken;
    }
  };
}
