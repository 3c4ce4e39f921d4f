/**
 * The run's log as the action relays it: passed on in pieces, each redacted whole, that end where
 * no secret can lie across the end (output/stream-cut.ts): at a line end where one allows it (not
 * one inside a block of wrapped base64, nor any when a secret holds a line break), so that a
 * secret split between two chunks of the run's output is still found. The run redacted every line
 * it wrote already; this is the action's own look, with its own copy of the secrets.
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
    cuts: () => redactor.pieceCuts(),
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
