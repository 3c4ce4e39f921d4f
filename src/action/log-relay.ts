/**
 * The run's log as the action relays it: passed on in pieces, each redacted whole, that end at a
 * line end where no secret's base64 can lie across it (output/stream-cut.ts: not inside a block of
 * wrapped base64), so that one split between two chunks of the run's output is still found. The
 * run redacted every text it wrote already; this is the action's own look, with its own copy of
 * the secrets.
 */
import type { Redactor } from "../output/redact.ts";
import { createPieceStream } from "../output/stream-cut.ts";

export interface LogRelay {
  /** Takes a chunk of the log; writes what can be told so far. */
  write: (chunk: string) => void;
  /** Writes the rest. */
  flush: () => void;
}

export function createLogRelay(
  write: (chunk: string) => void,
  redactor: Pick<Redactor, "redact" | "pieceCuts">,
): LogRelay {
  const pieces = createPieceStream({
    // A line feed ends a piece even when a secret holds one: the run redacted each text it wrote
    // whole, a secret of several lines with it, and a log that waited for a check's `reach` of
    // text after its last line would show its last lines late.
    cuts: () => ({ ...redactor.pieceCuts(), lineFeeds: true }),
    clean: (text) => redactor.redact(text) === text,
    // A line without its end waits for it, however long (as the relay always has).
    maxChars: Number.POSITIVE_INFINITY,
  });
  const pass = (piece: string) => {
    if (piece !== "") write(redactor.redact(piece));
  };
  return {
    write: (chunk) => pass(pieces.push(chunk)),
    flush: () => pass(pieces.rest()),
  };
}
