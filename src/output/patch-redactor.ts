/**
 * Redaction of a patch read a chunk at a time, as raw bytes (latin1, one char per byte: a patch
 * need not be valid UTF-8, and must come out byte for byte). The text is redacted a piece at a time
 * with the redactor's own `redact` (known secrets in ASCII, token shapes, base64) and
 * `redactLatin1` (known secrets that are not ASCII), each piece ending where no match can lie
 * across its end (stream-cut.ts: at a line end where one allows it; a line longer than
 * MAX_PIECE_CHARS inside), so a secret is found wherever the chunks were cut.
 *
 * The payload of a binary section (after `GIT binary patch`, up to the next `diff --git`) is left
 * as it is: it is base85 of (deflated) bytes, where no secret appears as itself, while random
 * base85 text matches a token shape now and then (`sk-` and 20 key characters: about once in
 * 600 MB), and a patch with a replaced base85 line is corrupt (`git apply` then skips the file).
 */
import type { Redactor } from "./redact.ts";
import { createPieceStream } from "./stream-cut.ts";

/** Past this many characters without a line end, a piece is redacted without waiting for one: 8 MiB. */
export const MAX_PIECE_CHARS = 8 * 1024 * 1024;

const BINARY_START = "GIT binary patch\n";
const SECTION_START = "diff --git ";

export interface PatchRedactor {
  /** The redacted text that can be told so far. */
  write(chunk: string): string;
  /** The rest. */
  end(): string;
  /** Whether anything was redacted. */
  readonly changed: boolean;
}

export function createPatchRedactor(
  redactor: Pick<Redactor, "redact" | "redactLatin1" | "pieceCuts">,
): PatchRedactor {
  let changed = false;
  let inBinary = false;
  let atLineStart = true;

  const redactText = (text: string) => {
    if (text === "") return text;
    const out = redactor.redactLatin1(redactor.redact(text));
    if (out !== text) changed = true;
    return out;
  };

  /** The index of the next line of `piece` at or after `from` that starts with `prefix`, or -1. */
  const lineStarting = (piece: string, prefix: string, from: number): number => {
    for (let index = piece.indexOf(prefix, from); index !== -1; index = piece.indexOf(prefix, index + 1)) {
      if (index === 0 ? atLineStart : piece.charCodeAt(index - 1) === 10) return index;
    }
    return -1;
  };

  const redactPiece = (piece: string): string => {
    let out = "";
    let position = 0;
    while (position < piece.length) {
      if (!inBinary) {
        const start = lineStarting(piece, BINARY_START, position);
        const end = start === -1 ? piece.length : start + BINARY_START.length;
        out += redactText(piece.slice(position, end));
        position = end;
        if (start !== -1) inBinary = true;
      } else {
        const next = lineStarting(piece, SECTION_START, position);
        const end = next === -1 ? piece.length : next;
        out += piece.slice(position, end);
        position = end;
        if (next !== -1) inBinary = false;
      }
    }
    atLineStart = piece.endsWith("\n");
    return out;
  };

  const pieces = createPieceStream({
    cuts: () => redactor.pieceCuts(),
    clean: (text) => redactor.redactLatin1(redactor.redact(text)) === text,
    maxChars: MAX_PIECE_CHARS,
  });

  return {
    get changed() {
      return changed;
    },
    write(chunk) {
      const piece = pieces.push(chunk);
      return piece === "" ? "" : redactPiece(piece);
    },
    end() {
      const rest = pieces.rest();
      return rest === "" ? "" : redactPiece(rest);
    },
  };
}
