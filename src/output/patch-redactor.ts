/**
 * Redaction of a patch read a chunk at a time, as raw bytes (latin1, one char per byte: a patch
 * need not be valid UTF-8, and must come out byte for byte). The text is redacted a piece at a time,
 * each piece ending at a line end, with the redactor's own `redact` (known secrets in ASCII, token
 * shapes, base64) and `redactLatin1` (known secrets that are not ASCII), so a secret on one line is
 * found wherever the chunks were cut; a line longer than MAX_PIECE_CHARS is cut there.
 */
import type { Redactor } from "./redact.ts";

/** Past this many characters without a line end, a piece is redacted without waiting for one: 8 MiB. */
export const MAX_PIECE_CHARS = 8 * 1024 * 1024;

export interface PatchRedactor {
  /** The redacted text that can be told so far. */
  write(chunk: string): string;
  /** The rest. */
  end(): string;
  /** Whether anything was redacted. */
  readonly changed: boolean;
}

export function createPatchRedactor(redactor: Pick<Redactor, "redact" | "redactLatin1">): PatchRedactor {
  let pending = "";
  let changed = false;
  const redact = (piece: string) => {
    const out = redactor.redactLatin1(redactor.redact(piece));
    if (out !== piece) changed = true;
    return out;
  };
  return {
    get changed() {
      return changed;
    },
    write(chunk) {
      pending += chunk;
      const cut = pending.lastIndexOf("\n");
      if (cut === -1 && pending.length < MAX_PIECE_CHARS) return "";
      const end = cut === -1 ? pending.length : cut + 1;
      const piece = pending.slice(0, end);
      pending = pending.slice(end);
      return redact(piece);
    },
    end() {
      const rest = pending;
      pending = "";
      return rest === "" ? "" : redact(rest);
    },
  };
}
