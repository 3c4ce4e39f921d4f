/**
 * The run's log as the action relays it: passed on in pieces, each redacted whole, that end where
 * no secret can lie across the end (output/stream-cut.ts): at a line end where one allows it (not
 * one inside a block of wrapped base64, nor any when a secret holds a line break), so that a
 * secret split between two chunks of the run's output is still found. The run redacted every line
 * it wrote already; this is the action's own look, with its own copy of the secrets.
 */
import type { Redactor } from "../output/redact.ts";
import { streamPieceEnd } from "../output/stream-cut.ts";

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
  let pending = "";
  let atLineStart = true;
  const clean = (text: string) => redactor.redact(text) === text;
  const pass = (piece: string) => {
    atLineStart = piece.endsWith("\n");
    write(redactor.redact(piece));
  };
  return {
    write(chunk) {
      pending += chunk;
      // A line without its end waits for it, however long (as the relay always has).
      const end = streamPieceEnd(pending, {
        cuts: redactor.pieceCuts(),
        clean,
        atLineStart,
        maxChars: Number.POSITIVE_INFINITY,
      });
      if (end === -1) return;
      const piece = pending.slice(0, end);
      pending = pending.slice(end);
      pass(piece);
    },
    flush() {
      if (pending !== "") pass(pending);
      pending = "";
    },
  };
}
