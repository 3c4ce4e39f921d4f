/**
 * Collecting a command's combined output from a pipe with bounded memory, and the model-facing view
 * of an output's two ends (shared with the file-backed output of bash-output-file.ts).
 *
 * Everything goes into a head+tail buffer of twice the byte budget (so both halves of the
 * model-facing view are always available). Once the output exceeds the line or byte budget, the
 * whole output is also written to a spill file, synchronously, so memory never grows with a child
 * that prints faster than the disk takes it; the spill starts before anything was dropped from
 * memory, so the file holds the full output.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createHeadTailBuffer } from "../system/head-tail-buffer.ts";
import { type TruncationResult, truncateHeadTailParts } from "../system/truncate.ts";

export interface BashOutputOptions {
  maxLines: number;
  maxBytes: number;
  /** Folder for the spill file (created if missing). */
  spillDir: string;
  /** Prefix of the spill file's name. */
  spillName: string;
  /** Bytes the spill file may hold (`caps.command_output`); past it `onStop` is called once. Default: no cap. */
  maxSavedBytes?: number;
  onStop?: () => void;
}

export interface BashOutputView {
  text: string;
  truncation: TruncationResult | undefined;
  fullOutputPath: string | undefined;
  totalBytes: number;
  totalLines: number;
}

export interface BashOutput {
  write(chunk: Buffer): void;
  /** The model-facing view so far (head and tail kept, middle counted). */
  view(): BashOutputView;
  /** Closes the spill file; call once the command is over. */
  close(): void;
  /** Set once the spill passed `maxSavedBytes` (it then holds exactly that many bytes). */
  stop(): { reason: "command"; capBytes: number; keptBytes: number; writtenBytes: number } | undefined;
}

/** A fresh file name in `dir` starting with `name` (time and a random suffix; `.log`). */
export function spillPathIn(dir: string, name: string): string {
  return join(dir, `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.log`);
}

/** The two ends of an output, as bytes, and what is known about the whole. */
export interface HeadTailBytes {
  /** The first bytes (at least `maxBytes` of them), or everything when `whole`. */
  head: Buffer;
  /** The last bytes (at least `maxBytes` of them); appended to `head` when `whole`. */
  tail: Buffer;
  whole: boolean;
  totalBytes: number;
  totalLines: number;
  /** Where the full output is (named in the elision marker). */
  fullOutputPath?: string;
  /** Why the full output could not be saved; said after the text when it was cut. */
  saveError?: string;
}

/** The model-facing view of an output of which only the two ends are at hand (see truncate.ts). */
export function headTailView(
  bytes: HeadTailBytes,
  limits: { maxLines: number; maxBytes: number },
): BashOutputView {
  const headText = bytes.whole
    ? Buffer.concat([bytes.head, bytes.tail]).toString("utf8")
    : bytes.head.toString("utf8");
  const tailText = bytes.whole ? headText : bytes.tail.toString("utf8");
  const truncation = truncateHeadTailParts(
    {
      head: headText,
      tail: tailText,
      totalLines: bytes.totalLines,
      totalBytes: bytes.totalBytes,
      ...(bytes.fullOutputPath !== undefined && { fullOutputPath: bytes.fullOutputPath }),
    },
    { maxLines: limits.maxLines, maxBytes: limits.maxBytes },
  );
  let text = truncation.content;
  if (truncation.truncated && bytes.saveError !== undefined) {
    text += `\n[the full output could not be saved: ${bytes.saveError}]`;
  }
  return {
    text,
    truncation: truncation.truncated ? truncation : undefined,
    fullOutputPath: bytes.fullOutputPath,
    totalBytes: bytes.totalBytes,
    totalLines: bytes.totalLines,
  };
}

/**
 * In-memory collection (the fallback when no output file can be created, see bash-output-file.ts):
 * the output comes through a pipe and is kept as head and tail, spilled once over the budget.
 */
export function createBashOutput(options: BashOutputOptions): BashOutput {
  const buffer = createHeadTailBuffer(options.maxBytes * 2);
  let newlines = 0;
  let lastByte = -1;
  let spillFd: number | undefined;
  let spillPath: string | undefined;
  let spillError: string | undefined;
  let spilled = 0;
  let stopped = false;
  const cap = options.maxSavedBytes ?? Number.POSITIVE_INFINITY;

  const spill = (chunk: Buffer) => {
    if (spillFd === undefined || stopped) return;
    const room = cap - spilled;
    const part = chunk.length > room ? chunk.subarray(0, Math.max(0, room)) : chunk;
    try {
      writeSync(spillFd, part);
      spilled += part.length;
    } catch (error) {
      spillError = (error as Error).message;
    }
    if (part.length < chunk.length) {
      stopped = true;
      try {
        options.onStop?.();
      } catch {}
    }
  };

  const startSpill = () => {
    try {
      mkdirSync(options.spillDir, { recursive: true });
      spillPath = spillPathIn(options.spillDir, options.spillName);
      spillFd = openSync(spillPath, "w", 0o600);
      const { head, tail } = buffer.parts();
      spill(head);
      spill(tail);
    } catch (error) {
      spillError = (error as Error).message;
      spillPath = undefined;
      spillFd = undefined;
    }
  };

  const countLines = () => newlines + (lastByte !== -1 && lastByte !== 10 ? 1 : 0);

  return {
    write(chunk) {
      if (chunk.length === 0) return;
      let chunkNewlines = 0;
      for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) chunkNewlines++;
      const overBudget =
        buffer.totalBytes + chunk.length > options.maxBytes || newlines + chunkNewlines > options.maxLines;
      if (overBudget && spillFd === undefined && spillError === undefined) startSpill();
      spill(chunk);
      buffer.write(chunk);
      newlines += chunkNewlines;
      lastByte = chunk[chunk.length - 1]!;
    },
    view() {
      const { head, tail } = buffer.parts();
      return headTailView(
        {
          head,
          tail,
          whole: buffer.droppedBytes === 0,
          totalBytes: buffer.totalBytes,
          totalLines: countLines(),
          ...(spillPath !== undefined && { fullOutputPath: spillPath }),
          ...(spillError !== undefined && { saveError: spillError }),
        },
        options,
      );
    },
    close() {
      if (spillFd !== undefined) {
        closeSync(spillFd);
        spillFd = undefined;
      }
    },
    stop() {
      return stopped
        ? { reason: "command", capBytes: cap, keptBytes: spilled, writtenBytes: buffer.totalBytes }
        : undefined;
    },
  };
}
