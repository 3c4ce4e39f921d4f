/**
 * Where a text that comes in chunks (a patch as git writes it, a run's log) may end the piece that
 * is redacted next, so that no match of the redactor lies across the end (see PieceCuts): after
 * the last line end that no match goes on past; else after one of the last few line ends when the
 * text within `reach` of it holds nothing to redact; in a line longer than `maxChars`, after a
 * character no match holds, or `reach` before the text's end when nothing lies across that.
 * Otherwise the text waits for more.
 */
import type { PieceCuts } from "./redact.ts";
import { blockMayGoOnPast } from "./token-shapes.ts";

/** How far back from its end a piece's end is looked for, but for its last line end: 8 Ki characters. */
const SAFE_SEARCH = 8 * 1024;
/** Line ends a match may go on past that are tried as other cuts are: the last 4. */
const CHECKED_LINE_ENDS = 4;

export interface StreamCutOptions {
  cuts: PieceCuts;
  /** Whether `text` holds nothing to redact. */
  clean: (text: string) => boolean;
  /** Whether `text` starts a line (the piece before it ended with a line end). */
  atLineStart: boolean;
  /** Past this many characters without a line end, a piece is cut inside the line. */
  maxChars: number;
}

/** Where `text`'s next piece ends (see the module comment); -1: wait for more. */
export function streamPieceEnd(text: string, options: StreamCutOptions): number {
  const { separators, lineFeeds, reach } = options.cuts;
  // The last line end is looked at wherever it is: a long line must not hold its piece back.
  const floor = Math.max(0, Math.min(text.lastIndexOf("\n"), text.length - SAFE_SEARCH));
  const clearAround = (cut: number) => options.clean(text.slice(Math.max(0, cut - reach), cut + reach));
  let lineEnds = 0;
  for (let i = text.lastIndexOf("\n"); i >= floor; i = i === 0 ? -1 : text.lastIndexOf("\n", i - 1)) {
    lineEnds++;
    if (lineFeeds && !blockMayGoOnPast(text, i, options.atLineStart)) return i + 1;
    // Pieces end at line ends, where what reads them line by line (a patch's sections) wants them.
    if (lineEnds <= CHECKED_LINE_ENDS && i + 1 + reach <= text.length && clearAround(i + 1)) return i + 1;
  }
  if (text.length < options.maxChars || lineEnds > 0) return -1;
  for (let i = text.length - 1; i >= floor; i--) {
    const code = text.charCodeAt(i);
    if (code < 128 && separators[code] === 1) return i + 1;
  }
  const cut = text.length - reach;
  return clearAround(cut) ? cut : -1;
}

/** Text that comes in chunks, handed back in pieces that end where `streamPieceEnd` says. */
export interface PieceStream {
  /** Takes a chunk; the next piece, or "" while the text waits for more. */
  push(chunk: string): string;
  /** What is left, to be told at the end. */
  rest(): string;
}

export function createPieceStream(
  options: Pick<StreamCutOptions, "clean" | "maxChars"> & { cuts: () => PieceCuts },
): PieceStream {
  let pending = "";
  let atLineStart = true;
  return {
    push(chunk) {
      pending += chunk;
      const end = streamPieceEnd(pending, { ...options, cuts: options.cuts(), atLineStart });
      if (end === -1) return "";
      const piece = pending.slice(0, end);
      pending = pending.slice(end);
      atLineStart = piece.endsWith("\n");
      return piece;
    },
    rest() {
      const rest = pending;
      pending = "";
      return rest;
    },
  };
}
