/**
 * Collecting a command's combined output with bounded memory.
 *
 * Everything goes into a head+tail buffer of twice the byte budget (so both halves of the
 * model-facing view are always available). Once the output exceeds the line or byte budget, the
 * whole output is also written to a spill file, synchronously, so memory never grows with a child
 * that prints faster than the disk takes it; the spill starts before anything was dropped from
 * memory, so the file holds the full output.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createHeadTailBuffer } from "./head-tail-buffer.ts";
import { type TruncationResult, truncateHeadTailParts } from "./truncate.ts";

export interface BashOutputOptions {
  maxLines: number;
  maxBytes: number;
  /** Folder for the spill file (created if missing). */
  spillDir: string;
  /** Prefix of the spill file's name. */
  spillName: string;
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
}

export function createBashOutput(options: BashOutputOptions): BashOutput {
  const buffer = createHeadTailBuffer(options.maxBytes * 2);
  let newlines = 0;
  let lastByte = -1;
  let spillFd: number | undefined;
  let spillPath: string | undefined;
  let spillError: string | undefined;

  const startSpill = () => {
    try {
      mkdirSync(options.spillDir, { recursive: true });
      spillPath = join(
        options.spillDir,
        `${options.spillName}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.log`,
      );
      spillFd = openSync(spillPath, "w", 0o600);
      const { head, tail } = buffer.parts();
      writeSync(spillFd, head);
      writeSync(spillFd, tail);
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
      if (spillFd !== undefined) {
        try {
          writeSync(spillFd, chunk);
        } catch (error) {
          spillError = (error as Error).message;
        }
      }
      buffer.write(chunk);
      newlines += chunkNewlines;
      lastByte = chunk[chunk.length - 1]!;
    },
    view() {
      const { head, tail } = buffer.parts();
      const whole = buffer.droppedBytes === 0;
      const headText = whole ? Buffer.concat([head, tail]).toString("utf8") : head.toString("utf8");
      const tailText = whole ? headText : tail.toString("utf8");
      const totalLines = countLines();
      const truncation = truncateHeadTailParts(
        {
          head: headText,
          tail: tailText,
          totalLines,
          totalBytes: buffer.totalBytes,
          ...(spillPath !== undefined && { fullOutputPath: spillPath }),
        },
        { maxLines: options.maxLines, maxBytes: options.maxBytes },
      );
      let text = truncation.content;
      if (truncation.truncated && spillError !== undefined) {
        text += `\n[the full output could not be saved: ${spillError}]`;
      }
      return {
        text,
        truncation: truncation.truncated ? truncation : undefined,
        fullOutputPath: spillPath,
        totalBytes: buffer.totalBytes,
        totalLines,
      };
    },
    close() {
      if (spillFd !== undefined) {
        closeSync(spillFd);
        spillFd = undefined;
      }
    },
  };
}
