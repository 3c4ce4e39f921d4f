import { z } from "zod";
import type { AgentTool, ImageContent, TextContent } from "../core/types.ts";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINE_CHARS,
  DEFAULT_MAX_LINES,
  formatSize,
} from "../system/truncate.ts";
import { detectImageMimeType, type ImageMimeType, looksBinary } from "./file-kind.ts";
import { createLocalFileOperations } from "./local-operations.ts";
import type { FileHandle, ToolOperations } from "./operations.ts";
import { insideToolPath, WorkspacePathError } from "./workspace-path.ts";

export interface ReadImage {
  data: Buffer;
  mimeType: string;
}

/** Resizes (or otherwise shrinks) an image before it goes to the model. */
export type ReadImageProcessor = (image: ReadImage) => Promise<ReadImage> | ReadImage;

export interface ReadToolOptions {
  /** Line budget of one read (also the default `limit`). Default: 2000. */
  maxLines?: number;
  /** Byte budget of one read's text. Default: 51200. */
  maxBytes?: number;
  /** Characters after which a single line is cut. Default: 2000. */
  maxLineChars?: number;
  /** Pass images through `imageProcessor` before returning them. Default: true (no-op without a processor). */
  autoResizeImages?: boolean;
  imageProcessor?: ReadImageProcessor;
  /** Images larger than this (after processing) are described, not returned. Default: 5 MiB. */
  maxImageBytes?: number;
  /** Where the file work happens (`open`). Default: the runner's process (createLocalOperations). */
  operations?: Partial<ToolOperations>;
}

export const readParameters = z.strictObject({
  path: z.string().min(1).describe("File to read, relative to the workspace root"),
  offset: z.number().int().min(1).optional().describe("First line to show, 1-based. Default: 1"),
  limit: z.number().int().min(1).optional().describe("How many lines to show. Default: 2000"),
});
export type ReadToolInput = z.infer<typeof readParameters>;

export interface ReadToolDetails {
  /** Root-relative path read. */
  path: string;
  kind: "text" | "image" | "binary" | "empty";
  /** File size in bytes. */
  bytes: number;
  /** For text: the lines shown (1-based, inclusive) and the file's line count. */
  startLine?: number;
  endLine?: number;
  totalLines?: number;
  /** Set when the text shown stops before the requested range did (budget reached). */
  truncation?: { truncatedBy: "lines" | "bytes"; nextOffset: number };
  /** Lines whose text was cut at `maxLineChars`. */
  cutLines?: number[];
  mimeType?: string;
}

const CHUNK_BYTES = 1024 * 1024;
const SAMPLE_BYTES = 8192;
const DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * The read tool: line-numbered text with offset/limit, bounded (lines, bytes, and each line's
 * length), binary files described, images returned as image content. Reads big files in 1 MiB
 * chunks: memory stays bounded by the budgets, not the file size.
 */
export function createReadTool(
  cwd: string,
  options: ReadToolOptions = {},
): AgentTool<ReadToolInput, ReadToolDetails> {
  const open = options.operations?.open ?? createLocalFileOperations(cwd).open;
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxLineChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;

  return {
    name: "read",
    label: "Read",
    description: `Read a file in the workspace. Text comes back line-numbered; use offset and limit (in lines) for large files. At most ${maxLines} lines or ${formatSize(maxBytes)} are shown per call, and lines longer than ${maxLineChars} characters are cut. Images (png, jpeg, gif, webp) come back as images; other binary files are described.`,
    parameters: readParameters,
    async execute(_id, params, signal) {
      const relative = insideToolPath(cwd, params.path);
      let handle: FileHandle;
      try {
        handle = await open(relative, "read");
      } catch (error) {
        if (error instanceof WorkspacePathError && error.code === "is-a-folder") {
          throw new Error(`"${relative}" is a folder; use ls to list it.`);
        }
        throw error;
      }
      const target = { relative };
      const size = handle.info.size;
      try {
        const sample = Buffer.alloc(Math.min(SAMPLE_BYTES, size));
        if (sample.length > 0) await handle.read(sample, 0, sample.length, 0);
        const base = { path: target.relative, bytes: size };
        if (size === 0) {
          return {
            content: [{ type: "text", text: `(${target.relative} is empty)` }],
            details: { ...base, kind: "empty" },
          };
        }
        const mimeType = detectImageMimeType(sample);
        if (mimeType) return await readImage(handle, size, mimeType, base, options);
        if (looksBinary(sample)) {
          const text = `${target.relative} is a binary file (${formatSize(size)}); not shown. Use bash (file, xxd, od) to inspect it.`;
          return { content: [{ type: "text", text }], details: { ...base, kind: "binary" } };
        }
        const startLine = params.offset ?? 1;
        const wanted = Math.min(params.limit ?? maxLines, maxLines);
        const scan = await scanLines(handle, size, startLine, wanted, maxBytes, maxLineChars, signal);
        if (scan.lines.length === 0 && startLine > 1) {
          throw new Error(
            `offset ${startLine} is beyond the end of ${target.relative} (${scan.totalLines} lines); use an offset from 1 to ${scan.totalLines}.`,
          );
        }
        const endLine = startLine + scan.lines.length - 1;
        const width = String(endLine).length;
        let text = scan.lines
          .map((line, index) => `${String(startLine + index).padStart(width)}\t${line}`)
          .join("\n");
        const details: ReadToolDetails = {
          ...base,
          kind: "text",
          startLine,
          endLine,
          totalLines: scan.totalLines,
        };
        const notes: string[] = [];
        if (scan.cutLines.length > 0) {
          details.cutLines = scan.cutLines;
          notes.push(
            `Line${scan.cutLines.length > 1 ? "s" : ""} ${scan.cutLines.slice(0, 10).join(", ")} ${scan.cutLines.length > 1 ? "were" : "was"} cut at ${maxLineChars} characters; use bash (e.g. cut -c) to see more.`,
          );
        }
        const requestedEnd = params.limit !== undefined ? startLine + params.limit - 1 : scan.totalLines;
        if (endLine < Math.min(requestedEnd, scan.totalLines)) {
          const truncatedBy = scan.stoppedBy ?? "lines";
          details.truncation = { truncatedBy, nextOffset: endLine + 1 };
          const why =
            truncatedBy === "bytes" ? `the ${formatSize(maxBytes)} limit` : `the ${maxLines}-line limit`;
          notes.push(
            `Showing lines ${startLine}-${endLine} of ${scan.totalLines} (${why}); ${scan.totalLines - endLine} more lines. Use offset=${endLine + 1} to continue.`,
          );
        } else if (endLine < scan.totalLines) {
          notes.push(
            `Showing lines ${startLine}-${endLine} of ${scan.totalLines}. Use offset=${endLine + 1} to continue.`,
          );
        }
        if (notes.length > 0) text += `\n\n[${notes.join(" ")}]`;
        return { content: [{ type: "text", text }], details };
      } finally {
        await handle.close();
      }
    },
  };
}

interface LineScan {
  lines: string[];
  totalLines: number;
  cutLines: number[];
  stoppedBy: "lines" | "bytes" | undefined;
}

/** One pass over the file: collects the wanted lines (each kept to a bounded prefix) and counts all. */
async function scanLines(
  handle: FileHandle,
  size: number,
  startLine: number,
  wanted: number,
  maxBytes: number,
  maxLineChars: number,
  signal: AbortSignal,
): Promise<LineScan> {
  const keepBytes = maxLineChars * 4 + 4;
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(1, size)));
  const lines: string[] = [];
  const cutLines: number[] = [];
  let lineNumber = 1;
  let current: Buffer[] = [];
  let currentKept = 0;
  let collecting = startLine === 1;
  let done = false;
  let outputBytes = 0;
  let stoppedBy: LineScan["stoppedBy"];

  const keep = (piece: Buffer) => {
    if (!collecting || currentKept >= keepBytes) return;
    const slice = piece.subarray(0, keepBytes - currentKept);
    current.push(Buffer.from(slice));
    currentKept += slice.length;
  };
  const finishLine = (truncatedRaw: boolean) => {
    if (collecting) {
      let text = Buffer.concat(current).toString("utf8");
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (truncatedRaw || text.length > maxLineChars) {
        text = `${text.slice(0, maxLineChars)}... [line cut]`;
        cutLines.push(lineNumber);
      }
      const bytes = Buffer.byteLength(text) + 8;
      if (outputBytes + bytes > maxBytes && lines.length > 0) {
        stoppedBy = "bytes";
        collecting = false;
        done = true;
      } else {
        lines.push(text);
        outputBytes += bytes;
        if (lines.length >= wanted) {
          collecting = false;
          done = true;
          stoppedBy = "lines";
        }
      }
    }
    current = [];
    currentKept = 0;
    lineNumber++;
    if (!done && lineNumber === startLine) collecting = true;
  };

  let position = 0;
  let lastByte = -1;
  let lineOverflow = false;
  while (position < size) {
    if (signal.aborted) throw new Error("read was aborted");
    const bytesRead = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    lastByte = chunk[bytesRead - 1]!;
    let start = 0;
    if (done) {
      // Only counting now: indexOf over the buffer is far faster than per-line work.
      for (let nl = chunk.indexOf(10, 0); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(10, nl + 1))
        lineNumber++;
      continue;
    }
    while (start < bytesRead) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1 || nl >= bytesRead) {
        const piece = chunk.subarray(start, bytesRead);
        if (collecting && currentKept + piece.length > keepBytes) lineOverflow = true;
        keep(piece);
        break;
      }
      const piece = chunk.subarray(start, nl);
      if (collecting && currentKept + piece.length > keepBytes) lineOverflow = true;
      keep(piece);
      finishLine(lineOverflow);
      lineOverflow = false;
      start = nl + 1;
      if (done) {
        for (
          let next = chunk.indexOf(10, start);
          next !== -1 && next < bytesRead;
          next = chunk.indexOf(10, next + 1)
        ) {
          lineNumber++;
        }
        break;
      }
    }
  }
  // A last line without a final newline still counts (and may be wanted).
  if (size > 0 && lastByte !== 10) {
    if (!done) finishLine(lineOverflow);
    else lineNumber++;
  }
  return { lines, totalLines: lineNumber - 1, cutLines, stoppedBy: done ? stoppedBy : undefined };
}

async function readImage(
  handle: FileHandle,
  size: number,
  mimeType: ImageMimeType,
  base: { path: string; bytes: number },
  options: ReadToolOptions,
) {
  const maxImageBytes = options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  const processor = options.autoResizeImages === false ? undefined : options.imageProcessor;
  if (!processor && size > maxImageBytes) {
    const text = `${base.path} is a ${mimeType} image of ${formatSize(size)}, larger than the ${formatSize(maxImageBytes)} limit; not shown.`;
    return {
      content: [{ type: "text", text }] as TextContent[],
      details: { ...base, kind: "image" as const, mimeType },
    };
  }
  let image: ReadImage = { data: Buffer.alloc(size), mimeType };
  for (let filled = 0; filled < size; ) {
    const n = await handle.read(image.data, filled, size - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  if (processor) image = await processor(image);
  if (image.data.length > maxImageBytes) {
    const text = `${base.path} is a ${mimeType} image of ${formatSize(image.data.length)}, larger than the ${formatSize(maxImageBytes)} limit; not shown.`;
    return {
      content: [{ type: "text", text }] as TextContent[],
      details: { ...base, kind: "image" as const, mimeType },
    };
  }
  const content: (TextContent | ImageContent)[] = [
    { type: "text", text: `${base.path}: ${image.mimeType} image (${formatSize(image.data.length)})` },
    { type: "image", data: image.data.toString("base64"), mimeType: image.mimeType },
  ];
  return { content, details: { ...base, kind: "image" as const, mimeType: image.mimeType } };
}
