/**
 * A command's combined output written by the child itself into a file (runProcess's `outputFile`),
 * read back in bounded pieces, so no output byte passes through this process while it runs.
 *
 * The view is the same as the in-memory one (bash-output.ts): the first and the last `maxBytes`
 * bytes are read at their offsets (everything when the file holds at most twice that), and lines
 * are counted in one pass over the file in fixed-size chunks through one reused buffer, resumed
 * where the previous count stopped. `count` advances it while the command still writes, so the
 * final view reads only what came last. Memory is O(maxBytes) whatever the size of the file.
 *
 * A command that reopens its own output (`echo x > /dev/stderr` opens /proc/self/fd/2 anew, with
 * O_TRUNC) would truncate the file. So the file is made read-only once both descriptors are open:
 * that reopen then fails with EACCES and nothing is lost (through the pipes used before, it failed
 * with ENXIO). A root user is not stopped by the mode; for it, the descriptor's O_APPEND at least
 * keeps later output free of a hole of NUL bytes, but what came before the reopen is lost.
 */
import { constants, fchmodSync, fstatSync, mkdirSync, openSync, read as readCallback } from "node:fs";
import { closeQuietly, unlinkQuietly } from "../system/quiet-fs.ts";
import { type BashOutputView, headTailView, spillPathIn } from "./bash-output.ts";

/**
 * Bytes read per step of the line count: 1 MiB. In 64 KiB steps, the trips through the thread pool
 * were half of a 23 MB output's count (28-35 ms against 15 ms here).
 */
export const OUTPUT_SCAN_CHUNK_BYTES = 1024 * 1024;

export interface OutputFileOptions {
  maxLines: number;
  maxBytes: number;
  /** Folder of the file (created if missing). */
  spillDir: string;
  /** Prefix of the file's name. */
  spillName: string;
}

export interface OutputFile {
  /** Absolute path of the file. */
  readonly path: string;
  /** Write-only descriptor (O_APPEND) to give the child as stdout and stderr. */
  readonly fd: number;
  /** The model-facing view of what the file holds now. */
  view(): Promise<BashOutputView>;
  /** The view, or undefined when the file has not changed size since the last view. */
  viewIfChanged(): Promise<BashOutputView | undefined>;
  /** Counts the lines the file holds now; resolves true when it had grown since the last count. */
  count(): Promise<boolean>;
  /**
   * Closes both descriptors; the file is kept when `keep`, deleted otherwise. With `handedOver`,
   * only the reader is closed: the writer and the file belong to an output guard (output-guard.ts).
   * Never rejects.
   */
  finish(keep: boolean, handedOver?: boolean): Promise<void>;
}

/** Creates the file (a fresh name, read-only for its owner once open) and opens it for the child and for reading. */
export async function createOutputFile(options: OutputFileOptions): Promise<OutputFile> {
  // Synchronous: a few syscalls on a local folder cost less than a trip through the thread pool each.
  mkdirSync(options.spillDir, { recursive: true });
  const path = spillPathIn(options.spillDir, options.spillName);
  const writer = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND,
    0o600,
  );
  let reader: number;
  try {
    reader = openSync(path, "r");
  } catch (error) {
    closeQuietly(writer);
    unlinkQuietly(path);
    throw error;
  }
  try {
    fchmodSync(writer, 0o400);
  } catch {
    // A file system without modes: the reopen is then only as safe as for root (module comment).
  }
  const read = (buffer: Buffer, offset: number, length: number, position: number) =>
    new Promise<number>((resolve, reject) =>
      readCallback(reader, buffer, offset, length, position, (error, bytesRead) =>
        error ? reject(error) : resolve(bytesRead),
      ),
    );

  // Allocated by the first count that reads anything: most commands print little or nothing.
  let scratch: Buffer | undefined;
  let scanned = 0;
  let newlines = 0;
  let lastByte = -1;
  let viewedSize = 0;

  const scanToEnd = async () => {
    const size = fstatSync(reader).size;
    // The command truncated its own output (see the module comment): count again from the start.
    if (size < scanned) {
      scanned = 0;
      newlines = 0;
      lastByte = -1;
    }
    const from = scanned;
    while (scanned < size) {
      scratch ??= Buffer.allocUnsafe(OUTPUT_SCAN_CHUNK_BYTES);
      const length = Math.min(scratch.length, size - scanned);
      const bytesRead = await read(scratch, 0, length, scanned);
      if (bytesRead === 0) break;
      const chunk = scratch.subarray(0, bytesRead);
      newlines += countNewlines(chunk);
      lastByte = chunk[bytesRead - 1]!;
      scanned += bytesRead;
    }
    return scanned !== from;
  };
  // One count at a time (they share the buffer and the position): each from where the last stopped.
  let counting: Promise<unknown> = Promise.resolve();
  const countNow = (): Promise<boolean> => {
    const next = counting.then(scanToEnd);
    counting = next.catch(() => {});
    return next;
  };

  // The two ends are read into one buffer reused by every view: head, then tail, or the whole.
  // Each end holds the whole byte budget (at least truncate.ts's minimum of 16).
  const end = endBytes(options.maxBytes);
  let window: Buffer | undefined;
  const readAt = async (into: number, position: number, length: number): Promise<Buffer> => {
    window ??= Buffer.allocUnsafe(end * 2);
    let filled = 0;
    while (filled < length) {
      const bytesRead = await read(window, into + filled, length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return window.subarray(into, into + filled);
  };

  const viewNow = async (): Promise<BashOutputView> => {
    await countNow();
    const total = scanned;
    viewedSize = total;
    const whole = shownWhole(total, options.maxBytes);
    const head = await readAt(0, 0, whole ? total : end);
    const tail = whole ? Buffer.alloc(0) : await readAt(end, total - end, end);
    return headTailView(
      {
        head,
        tail,
        whole,
        totalBytes: total,
        totalLines: newlines + (lastByte !== -1 && lastByte !== 10 ? 1 : 0),
        fullOutputPath: path,
      },
      options,
    );
  };

  return {
    path,
    fd: writer,
    view: viewNow,
    async viewIfChanged() {
      return fstatSync(reader).size === viewedSize ? undefined : viewNow();
    },
    count: countNow,
    async finish(keep, handedOver) {
      closeQuietly(reader);
      if (handedOver) return;
      closeQuietly(writer);
      if (!keep) unlinkQuietly(path);
    },
  };
}

/** Bytes read at each end of an output for its view: `maxBytes`, at least truncate.ts's minimum of 16. */
function endBytes(maxBytes: number): number {
  return Math.max(16, Math.floor(maxBytes));
}

/** Whether an output of `size` bytes is read whole for its view (else it is cut, and its file kept). */
export function shownWhole(size: number, maxBytes: number): boolean {
  return size <= endBytes(maxBytes) * 2;
}

/**
 * The line feeds in `bytes`, four bytes at a time: each 32-bit word XORed with four line feeds has
 * a zero byte where one was, and a zero byte is told without a carry into its neighbour (its low
 * seven bits plus 0x7f set its top bit only when it was not zero). `seq 1 3000000`'s 23 MB in
 * 8-13 ms, where a search per line feed took 70-80 ms.
 */
export function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  let i = 0;
  const unaligned = (4 - (bytes.byteOffset % 4)) % 4;
  for (; i < unaligned; i++) {
    if (i === bytes.length) return count;
    if (bytes[i] === 10) count++;
  }
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (bytes.length - i) >>> 2);
  for (let w = 0; w < words.length; w++) {
    const x = words[w]! ^ 0x0a0a0a0a;
    const zeros = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f) >>> 7;
    // One bit per zero byte, at each byte's bottom: the multiply sums the four into the top byte.
    count += Math.imul(zeros, 0x01010101) >>> 24;
  }
  for (i += words.length * 4; i < bytes.length; i++) if (bytes[i] === 10) count++;
  return count;
}
