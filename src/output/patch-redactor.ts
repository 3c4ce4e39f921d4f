/**
 * Redaction of a patch read a chunk at a time, as raw bytes (latin1, one char per byte: a patch
 * need not be valid UTF-8, and must come out byte for byte). The text is redacted a piece at a time,
 * each piece ending at a line end, with the redactor's own `redact` (known secrets in ASCII, token
 * shapes, base64) and `redactLatin1` (known secrets that are not ASCII), so a secret is found
 * wherever the chunks were cut. A piece ends where no match can lie across its end (the redactor's
 * PieceCuts): at a line end, unless the line is a whole line of wrapped base64 or a secret holds a
 * line break, or after a character no match holds. A line longer than MAX_PIECE_CHARS without such
 * a place is cut where the text within `reach` of the cut holds nothing to redact.
 *
 * The payload of a binary section (after `GIT binary patch`, up to the next `diff --git`) is left
 * as it is: it is base85 of (deflated) bytes, where no secret appears as itself, while random
 * base85 text matches a token shape now and then (`sk-` and 20 key characters: about once in
 * 600 MB), and a patch with a replaced base85 line is corrupt (`git apply` then skips the file).
 */
import type { Redactor } from "./redact.ts";
import { isWholeBase64Line } from "./token-shapes.ts";

/** Past this many characters without a line end, a piece is redacted without waiting for one: 8 MiB. */
export const MAX_PIECE_CHARS = 8 * 1024 * 1024;
/** How far back from its end a piece's end is looked for: 8 Ki characters. */
const SAFE_SEARCH = 8 * 1024;

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
  let pending = "";
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

  /**
   * Where the piece `pending` starts ends: after its last line end that no match goes on past,
   * looked for in its last SAFE_SEARCH characters (and at its last line end wherever it is); in a
   * line longer than MAX_PIECE_CHARS, after a character no match holds or `reach` before its end
   * when nothing lies across that. -1: wait for more.
   */
  const pieceEnd = (): number => {
    const { separators, lineFeeds, reach } = redactor.pieceCuts();
    const text = pending;
    // The last line end is looked at wherever it is: a long line must not hold its piece back.
    const floor = Math.max(0, Math.min(text.lastIndexOf("\n"), text.length - SAFE_SEARCH));
    const clearAround = (cut: number) => {
      const around = text.slice(Math.max(0, cut - reach), cut + reach);
      return redactor.redactLatin1(redactor.redact(around)) === around;
    };
    let lineEnds = 0;
    for (let i = text.lastIndexOf("\n"); i >= floor; i = i === 0 ? -1 : text.lastIndexOf("\n", i - 1)) {
      lineEnds++;
      const lineStart = i === 0 ? 0 : text.lastIndexOf("\n", i - 1) + 1;
      const lineEnd = i > lineStart && text.charCodeAt(i - 1) === 13 ? i - 1 : i;
      // A line that began in the piece before is longer than what is here of it.
      const known = lineStart > 0 || atLineStart || lineEnd > 76;
      if (lineFeeds && known && !isWholeBase64Line(text, lineStart, lineEnd)) return i + 1;
      // A piece ends at a line end, where a section's first line cannot be cut: the last few that
      // a match may go on past are tried as other cuts are.
      if (lineEnds <= 4 && i + 1 + reach <= text.length && clearAround(i + 1)) return i + 1;
    }
    if (text.length < MAX_PIECE_CHARS || lineEnds > 0) return -1;
    // A line too long to wait for its end: cut in it, after a character no match holds, or where
    // nothing lies across the cut.
    for (let i = text.length - 1; i >= floor; i--) {
      const code = text.charCodeAt(i);
      if (code < 128 && separators[code] === 1) return i + 1;
    }
    const cut = text.length - reach;
    return clearAround(cut) ? cut : -1;
  };

  return {
    get changed() {
      return changed;
    },
    write(chunk) {
      pending += chunk;
      const end = pieceEnd();
      if (end === -1) return "";
      const piece = pending.slice(0, end);
      pending = pending.slice(end);
      return redactPiece(piece);
    },
    end() {
      const rest = pending;
      pending = "";
      return rest === "" ? "" : redactPiece(rest);
    },
  };
}
