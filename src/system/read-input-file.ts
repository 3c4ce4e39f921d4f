import { isUtf8 } from "node:buffer";
import { constants, type Stats } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { errorText } from "../core/errors.ts";

/**
 * Reads a file the user named (a task spec, a replay file) as UTF-8 text, refusing what is not a
 * regular text file of a sane size, without ever blocking: the file is opened non-blocking and
 * checked with `fstat` before a byte is read, so a FIFO, a device, a socket or a directory gives a
 * problem at once (a plain `readFile` of a FIFO waits forever for a writer, and of /dev/zero reads
 * until memory runs out). Never throws: failures are data, with a `line` and `column` (1-based)
 * when the problem is at a place in the file.
 */
export type InputFileResult =
  | { ok: true; text: string }
  | {
      ok: false;
      problem: InputFileProblem;
      /** Completes "<file> …": "does not exist", "is a FIFO, not a regular file". */
      message: string;
      line?: number;
      column?: number;
      cause?: unknown;
    };

export type InputFileProblem = "not_found" | "not_a_file" | "too_large" | "unreadable" | "not_text";

export interface ReadInputFileOptions {
  /** Files larger than this are refused unread. */
  maxBytes: number;
}

export async function readInputFile(file: string, options: ReadInputFileOptions): Promise<InputFileResult> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    return openFailure(file, error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile())
      return { ok: false, problem: "not_a_file", message: `is ${kindOf(info)}, not a regular file` };
    if (info.size > options.maxBytes) return tooLarge(info.size, options.maxBytes);
    // Read to the end, but never past the limit: the size from fstat is 0 for /proc files and
    // may change while we read.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, options.maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > options.maxBytes) return tooLarge(total, options.maxBytes);
    }
    return decode(Buffer.concat(chunks, total));
  } catch (error) {
    return { ok: false, problem: "unreadable", message: `cannot be read: ${reason(error)}`, cause: error };
  } finally {
    await handle.close().catch(() => {});
  }
}

/** "1.5 MB", "16 MB", "3 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

function tooLarge(size: number, max: number): InputFileResult {
  return {
    ok: false,
    problem: "too_large",
    message: `is ${size > max && size <= max + 1 ? `over ${formatBytes(max)}` : formatBytes(size)}; the limit is ${formatBytes(max)}`,
  };
}

function decode(buffer: Buffer): InputFileResult {
  if (!isUtf8(buffer)) {
    const at = firstInvalidUtf8(buffer);
    return {
      ok: false,
      problem: "not_text",
      message: `is not UTF-8 text (byte 0x${buffer[at]?.toString(16).padStart(2, "0")})`,
      ...lineAndColumn(buffer, at),
    };
  }
  const nul = buffer.indexOf(0);
  if (nul >= 0) {
    return {
      ok: false,
      problem: "not_text",
      message: "holds a NUL byte: it is not a text file",
      ...lineAndColumn(buffer, nul),
    };
  }
  return { ok: true, text: buffer.toString("utf8") };
}

/** The 1-based line and column (in characters) of a byte offset of valid UTF-8 before it. */
function lineAndColumn(buffer: Buffer, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = buffer.indexOf(10); i >= 0 && i < offset; i = buffer.indexOf(10, i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: buffer.toString("utf8", lineStart, offset).length + 1 };
}

/** The offset of the first byte that does not belong to a valid UTF-8 sequence. */
function firstInvalidUtf8(buffer: Buffer): number {
  let i = 0;
  while (i < buffer.length) {
    const byte = buffer[i]!;
    const length =
      byte < 0x80
        ? 1
        : byte >= 0xc2 && byte < 0xe0
          ? 2
          : byte >= 0xe0 && byte < 0xf0
            ? 3
            : byte >= 0xf0 && byte < 0xf5
              ? 4
              : 0;
    if (length === 0 || i + length > buffer.length) return i;
    if (length > 1 && !isUtf8(buffer.subarray(i, i + length))) return i;
    i += length;
  }
  return buffer.length;
}

async function openFailure(file: string, error: unknown): Promise<InputFileResult> {
  const code = (error as NodeJS.ErrnoException).code;
  const failure = (problem: InputFileProblem, message: string): InputFileResult => ({
    ok: false,
    problem,
    message,
    cause: error,
  });
  switch (code) {
    case "ENOENT":
      return failure("not_found", "does not exist");
    case "ENOTDIR":
      return failure("not_found", "does not exist (a part of its path is not a folder)");
    case "ELOOP":
      return failure("unreadable", "is a loop of symbolic links");
    case "EACCES":
    case "EPERM":
      return failure("unreadable", "cannot be read: permission denied");
    case "ENXIO":
    case "EOPNOTSUPP": {
      // A socket cannot be opened at all; say what it is.
      const info = await stat(file).catch(() => undefined);
      return failure("not_a_file", info ? `is ${kindOf(info)}, not a regular file` : "is not a regular file");
    }
    default:
      return failure("unreadable", `cannot be read: ${reason(error)}`);
  }
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a folder";
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "a special file";
}

function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code ?? errorText(error);
}
