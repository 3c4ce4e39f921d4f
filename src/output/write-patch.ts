/**
 * patch.diff from the patch git wrote: copied a chunk at a time through the redactor (as raw bytes,
 * so a patch that is not valid UTF-8 is kept byte for byte), its line counts taken on the way (see
 * ./patch-scan.ts), its beginning kept for the summary. Memory stays O(chunk) whatever the size.
 * Written through a temp file and a rename: a reader, a kill or a full disk never leaves half a
 * patch.diff, and the temp file is removed when the write fails.
 */
import fs from "node:fs/promises";
import { tempPathFor } from "./atomic-write.ts";
import { applySectionStats, type ComputedPatch, decodePatch } from "./diff.ts";
import { createPatchRedactor } from "./patch-redactor.ts";
import { createPatchScanner } from "./patch-scan.ts";
import type { Redactor } from "./redact.ts";

/** Bytes read per step: 1 MiB. */
export const PATCH_CHUNK_BYTES = 1024 * 1024;

export interface WrittenPatch {
  /** Bytes of patch.diff (after redaction). */
  bytes: number;
  /**
   * The beginning of patch.diff for the summary, decoded (UTF-8, or latin1 when that fails): all of
   * it when it holds at most `headChars` characters, else cut at a line end before that.
   */
  head: string;
  /** Whether `head` is the whole patch. */
  complete: boolean;
  /** Whether the redactor changed the patch: a secret was in it. */
  hadSecret: boolean;
}

export interface WritePatchOptions {
  redactor: Pick<Redactor, "redact" | "redactLatin1" | "pieceCuts">;
  /** Characters of the beginning kept in `head`. */
  headChars: number;
}

/**
 * Writes `patch` (git's file, unredacted) to `dest` and fills in the line counts of `patch.files`.
 * An empty patch writes an empty file. Throws when reading or writing fails; `dest` is then as it was.
 */
export async function writePatch(
  patch: ComputedPatch,
  dest: string,
  options: WritePatchOptions,
): Promise<WrittenPatch> {
  const temp = tempPathFor(dest);
  const scanner = createPatchScanner();
  const redactor = createPatchRedactor(options.redactor);
  let head = "";
  let bytes = 0;
  const output = await fs.open(temp, "w");
  try {
    const emit = async (text: string) => {
      if (text === "") return;
      if (head.length < options.headChars + 1) head += text.slice(0, options.headChars + 1 - head.length);
      const buffer = Buffer.from(text, "latin1");
      bytes += buffer.length;
      await output.write(buffer);
    };
    if (patch.file !== "") {
      const input = await fs.open(patch.file, "r");
      try {
        const buffer = Buffer.allocUnsafe(PATCH_CHUNK_BYTES);
        for (;;) {
          const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
          if (bytesRead === 0) break;
          const text = buffer.toString("latin1", 0, bytesRead);
          scanner.write(text);
          await emit(redactor.write(text));
        }
      } finally {
        await input.close();
      }
    }
    await emit(redactor.end());
    await output.close();
    await fs.rename(temp, dest);
  } catch (error) {
    await output.close().catch(() => {});
    await fs.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
  applySectionStats(patch, scanner.end());
  return {
    bytes,
    head: decodeHead(head, options.headChars),
    complete: head.length <= options.headChars,
    hadSecret: redactor.changed,
  };
}

function decodeHead(latin1: string, headChars: number): string {
  let kept = latin1;
  if (kept.length > headChars) {
    const cut = kept.lastIndexOf("\n", headChars - 1);
    kept = kept.slice(0, cut + 1);
  }
  return decodePatch(Buffer.from(kept, "latin1")).patch;
}
