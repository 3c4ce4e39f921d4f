/**
 * Bounding what the model sees. Limits are in lines and in UTF-8 bytes; the first one reached wins.
 *
 * - `truncateHead` keeps the beginning (read, grep, find, ls): whole lines only, except that a first
 *   line larger than the byte budget is itself cut.
 * - `truncateHeadTail` keeps both ends (bash): the head gets half the line budget and half the byte
 *   budget, the tail the other half, each made of whole lines (a single line larger than its half is
 *   cut); the marker's size is taken from the byte budget first, so head + marker + tail never
 *   exceeds `maxBytes`. The elided middle is counted in lines and bytes in the marker.
 * - `truncateLine` cuts one over-long line and says how much was cut.
 */

/** Default line budget of model-facing output: 2000 lines. */
export const DEFAULT_MAX_LINES = 2000;
/** Default byte budget of model-facing output: 50 KiB (51200 bytes). */
export const DEFAULT_MAX_BYTES = 51200;
/** Default length at which read cuts a single line: 2000 characters. */
export const DEFAULT_MAX_LINE_CHARS = 2000;

export interface TruncationOptions {
  /** Default: DEFAULT_MAX_LINES (2000). */
  maxLines?: number;
  /** Default: DEFAULT_MAX_BYTES (51200). */
  maxBytes?: number;
}

/** What a truncation kept and dropped; all counts are of the full text. */
export interface TruncationResult {
  content: string;
  truncated: boolean;
  /** Which limit cut the text; null when nothing was cut. */
  truncatedBy: "lines" | "bytes" | null;
  /** Which part was kept. */
  kept: "head" | "tail" | "head+tail";
  totalLines: number;
  totalBytes: number;
  /** Lines and bytes of the original text present in `content` (markers not counted). */
  outputLines: number;
  outputBytes: number;
  droppedLines: number;
  droppedBytes: number;
  /** A kept line was itself cut because it alone exceeded the byte budget. */
  lineCut: boolean;
}

interface Slice {
  text: string;
  bytes: number;
  lines: number;
  lineCut: boolean;
}

/** Lines in a text: newline count, plus one for a final line without a newline. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  let index = text.indexOf("\n");
  while (index !== -1) {
    count++;
    index = text.indexOf("\n", index + 1);
  }
  return text.endsWith("\n") ? count : count + 1;
}

/** Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function cutToBytes(text: string, maxBytes: number, fromEnd = false): string {
  const buffer = Buffer.from(text, "utf8");
  if (buffer.length <= maxBytes) return text;
  if (!fromEnd) {
    let end = Math.max(0, maxBytes);
    while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--;
    return buffer.subarray(0, end).toString("utf8");
  }
  let start = buffer.length - Math.max(0, maxBytes);
  while (start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start++;
  return buffer.subarray(start).toString("utf8");
}

function takeHead(text: string, maxLines: number, maxBytes: number): Slice {
  let end = 0;
  let bytes = 0;
  let lines = 0;
  while (end < text.length && lines < maxLines) {
    const newline = text.indexOf("\n", end);
    const next = newline === -1 ? text.length : newline + 1;
    const lineBytes = Buffer.byteLength(text.slice(end, next), "utf8");
    if (bytes + lineBytes > maxBytes) {
      if (lines === 0) {
        const cut = cutToBytes(text.slice(end, next), maxBytes);
        return { text: cut, bytes: Buffer.byteLength(cut), lines: 1, lineCut: true };
      }
      break;
    }
    bytes += lineBytes;
    lines++;
    end = next;
  }
  return { text: text.slice(0, end), bytes, lines, lineCut: false };
}

function takeTail(text: string, maxLines: number, maxBytes: number): Slice {
  let start = text.length;
  let bytes = 0;
  let lines = 0;
  while (start > 0 && lines < maxLines) {
    // The line ending at `start` begins after the previous newline (ignoring its own trailing one).
    const searchFrom = text[start - 1] === "\n" ? start - 2 : start - 1;
    const newline = searchFrom < 0 ? -1 : text.lastIndexOf("\n", searchFrom);
    const lineStart = newline + 1;
    const lineBytes = Buffer.byteLength(text.slice(lineStart, start), "utf8");
    if (bytes + lineBytes > maxBytes) {
      if (lines === 0) {
        const cut = cutToBytes(text.slice(lineStart, start), maxBytes, true);
        return { text: cut, bytes: Buffer.byteLength(cut), lines: 1, lineCut: true };
      }
      break;
    }
    bytes += lineBytes;
    lines++;
    start = lineStart;
  }
  return { text: text.slice(start), bytes, lines, lineCut: false };
}

function limits(options: TruncationOptions): { maxLines: number; maxBytes: number } {
  return {
    maxLines: Math.max(1, options.maxLines ?? DEFAULT_MAX_LINES),
    maxBytes: Math.max(16, options.maxBytes ?? DEFAULT_MAX_BYTES),
  };
}

function untouched(text: string, totalLines: number, totalBytes: number, kept: TruncationResult["kept"]) {
  return {
    content: text,
    truncated: false,
    truncatedBy: null,
    kept,
    totalLines,
    totalBytes,
    outputLines: totalLines,
    outputBytes: totalBytes,
    droppedLines: 0,
    droppedBytes: 0,
    lineCut: false,
  } satisfies TruncationResult;
}

/** Keeps the beginning of `text` within the limits. */
export function truncateHead(text: string, options: TruncationOptions = {}): TruncationResult {
  return truncateOneEnd(text, options, "head");
}

/** Keeps the end of `text` within the limits. */
export function truncateTail(text: string, options: TruncationOptions = {}): TruncationResult {
  return truncateOneEnd(text, options, "tail");
}

function truncateOneEnd(text: string, options: TruncationOptions, kept: "head" | "tail"): TruncationResult {
  const { maxLines, maxBytes } = limits(options);
  const totalBytes = Buffer.byteLength(text, "utf8");
  const totalLines = countLines(text);
  if (totalLines <= maxLines && totalBytes <= maxBytes) return untouched(text, totalLines, totalBytes, kept);
  const part = kept === "head" ? takeHead(text, maxLines, maxBytes) : takeTail(text, maxLines, maxBytes);
  return {
    content: part.text,
    truncated: true,
    truncatedBy: part.lines >= maxLines && totalLines > maxLines ? "lines" : "bytes",
    kept,
    totalLines,
    totalBytes,
    outputLines: part.lines,
    outputBytes: part.bytes,
    droppedLines: totalLines - part.lines + (part.lineCut ? 1 : 0),
    droppedBytes: totalBytes - part.bytes,
    lineCut: part.lineCut,
  };
}

/** Where the full text can be found, for the marker; omitted when there is no copy. */
export interface HeadTailSource {
  /** The start of the text (at least the head budget of it). */
  head: string;
  /** The end of the text (at least the tail budget of it); equal to `head` when the text is whole. */
  tail: string;
  totalLines: number;
  totalBytes: number;
  fullOutputPath?: string;
}

/** Keeps both ends of `text` within the limits, the middle replaced by a counted marker. */
export function truncateHeadTail(
  text: string,
  options: TruncationOptions & { fullOutputPath?: string } = {},
) {
  return truncateHeadTailParts(
    {
      head: text,
      tail: text,
      totalLines: countLines(text),
      totalBytes: Buffer.byteLength(text, "utf8"),
      ...(options.fullOutputPath !== undefined && { fullOutputPath: options.fullOutputPath }),
    },
    options,
  );
}

/**
 * Head+tail truncation when only the two ends of the text are in memory (streamed output): `head`
 * and `tail` must each hold at least half the byte budget of their end, unless the text is whole.
 */
export function truncateHeadTailParts(
  source: HeadTailSource,
  options: TruncationOptions = {},
): TruncationResult {
  const { maxLines, maxBytes } = limits(options);
  const { totalLines, totalBytes } = source;
  if (totalLines <= maxLines && totalBytes <= maxBytes && source.head === source.tail) {
    return untouched(source.head, totalLines, totalBytes, "head+tail");
  }
  const headLines = Math.ceil(maxLines / 2);
  const tailLines = Math.floor(maxLines / 2);
  const where = source.fullOutputPath ? `; full output: ${source.fullOutputPath}` : "";
  const markerOf = (dropLines: number, dropBytes: number, kept1: number, kept2: number) =>
    `\n[... ${dropLines} lines (${dropBytes} bytes) elided; kept the first ${kept1} and last ${kept2} of ${totalLines} lines${where} ...]\n`;
  // Counts in the marker are at most these, so this length bounds the real marker's.
  const markerBound = Buffer.byteLength(markerOf(totalLines, totalBytes, headLines, tailLines));
  const budget = Math.max(2, maxBytes - markerBound);
  const head = takeHead(source.head, headLines, Math.ceil(budget / 2));
  const tail = takeTail(source.tail, tailLines, Math.floor(budget / 2));
  const droppedBytes = Math.max(0, totalBytes - head.bytes - tail.bytes);
  const droppedLines = Math.max(0, totalLines - head.lines - tail.lines);
  let marker = markerOf(droppedLines, droppedBytes, head.lines, tail.lines);
  if (head.text.endsWith("\n") || head.text.length === 0) marker = marker.slice(1);
  const truncatedBy = head.lines >= headLines && tail.lines >= tailLines ? "lines" : "bytes";
  return {
    content: head.text + marker + tail.text,
    truncated: true,
    truncatedBy,
    kept: "head+tail",
    totalLines,
    totalBytes,
    outputLines: head.lines + tail.lines,
    outputBytes: head.bytes + tail.bytes,
    droppedLines,
    droppedBytes,
    lineCut: head.lineCut || tail.lineCut,
  };
}

/** Cuts a single line to `maxChars` characters, saying how many were cut. */
export function truncateLine(
  line: string,
  maxChars = DEFAULT_MAX_LINE_CHARS,
): { text: string; cut: boolean } {
  if (line.length <= maxChars) return { text: line, cut: false };
  return {
    text: `${line.slice(0, maxChars)}... [line cut: ${line.length - maxChars} more characters]`,
    cut: true,
  };
}

/** Human-readable size: "512 B", "1.5 KB", "3.2 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
