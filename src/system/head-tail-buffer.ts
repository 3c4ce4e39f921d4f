/**
 * A byte buffer of bounded size that keeps the first and the last bytes written to it.
 *
 * Rule: the first `ceil(max/2)` bytes are kept as the head; once the head is full, later bytes go to
 * a rolling tail of at most `floor(max/2)` bytes; whatever falls out of the tail is counted in
 * `droppedBytes`. Memory is O(max) whatever is written. The head holds where a failure usually
 * starts, the tail holds the final status.
 */
export interface HeadTailBuffer {
  /** May keep a view of `chunk` (no copy): do not modify a chunk after writing it. */
  write(chunk: Buffer): void;
  /** Bytes written in total. */
  readonly totalBytes: number;
  /** Bytes written but no longer held (between head and tail). */
  readonly droppedBytes: number;
  /** The kept bytes; `tail` is empty until the head is full. */
  parts(): { head: Buffer; tail: Buffer };
  /** Head and tail decoded as UTF-8, joined by `marker(droppedBytes)` when bytes were dropped. */
  toString(marker?: (droppedBytes: number) => string): string;
}

/** Default elision marker: `\n[... N bytes elided ...]\n`. */
export function defaultElisionMarker(droppedBytes: number): string {
  return `\n[... ${droppedBytes} bytes elided ...]\n`;
}

/** Creates a head+tail buffer holding at most `maxBytes` bytes (minimum 2). */
export function createHeadTailBuffer(maxBytes: number): HeadTailBuffer {
  const max = Math.max(2, Math.floor(maxBytes));
  const headMax = Math.ceil(max / 2);
  const tailMax = max - headMax;
  const headChunks: Buffer[] = [];
  let headSize = 0;
  let tailChunks: Buffer[] = [];
  let tailSize = 0;
  let total = 0;
  let dropped = 0;

  const trimTail = () => {
    let excess = tailSize - tailMax;
    if (excess <= 0) return;
    let index = 0;
    while (excess > 0 && index < tailChunks.length) {
      const first = tailChunks[index]!;
      if (first.length <= excess) {
        excess -= first.length;
        tailSize -= first.length;
        dropped += first.length;
        index++;
      } else {
        tailChunks[index] = first.subarray(excess);
        tailSize -= excess;
        dropped += excess;
        excess = 0;
      }
    }
    if (index > 0) tailChunks = tailChunks.slice(index);
    // Slices keep their parent alive; copy once the tail is made of many small views.
    if (tailChunks.length > 64) {
      tailChunks = [Buffer.concat(tailChunks)];
    }
  };

  return {
    write(chunk: Buffer) {
      if (chunk.length === 0) return;
      total += chunk.length;
      let rest = chunk;
      if (headSize < headMax) {
        const take = Math.min(headMax - headSize, rest.length);
        headChunks.push(Buffer.from(rest.subarray(0, take)));
        headSize += take;
        rest = rest.subarray(take);
      }
      if (rest.length === 0) return;
      // A chunk far larger than the tail: copy only its end, so the big chunk can be freed.
      if (rest.length > tailMax) {
        dropped += tailSize + rest.length - tailMax;
        tailChunks = tailMax > 0 ? [Buffer.from(rest.subarray(rest.length - tailMax))] : [];
        tailSize = tailMax;
        return;
      }
      // Stream chunks are fresh buffers, never reused by Node: keeping a view saves a copy per chunk.
      tailChunks.push(rest);
      tailSize += rest.length;
      trimTail();
    },
    get totalBytes() {
      return total;
    },
    get droppedBytes() {
      return dropped;
    },
    parts() {
      return { head: Buffer.concat(headChunks), tail: Buffer.concat(tailChunks) };
    },
    toString(marker = defaultElisionMarker) {
      const { head, tail } = this.parts();
      if (dropped === 0) return Buffer.concat([head, tail]).toString("utf8");
      return head.toString("utf8") + marker(dropped) + tail.toString("utf8");
    },
  };
}
