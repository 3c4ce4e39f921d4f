/**
 * Telling images and binary files from text by their first bytes (not by their names).
 *
 * `looksBinary` also runs in the sandbox's exec server from its source text (see
 * confined-fs.ts): its body uses nothing but its parameter and globals.
 */

/** Image formats the read tool returns as image content. */
export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** The image type announced by the file's magic bytes, or undefined. */
export function detectImageMimeType(head: Uint8Array): ImageMimeType | undefined {
  const starts = (...bytes: number[]) => bytes.every((byte, index) => head[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (
    starts(0x52, 0x49, 0x46, 0x46) &&
    head[8] === 0x57 &&
    head[9] === 0x45 &&
    head[10] === 0x42 &&
    head[11] === 0x50
  ) {
    return "image/webp";
  }
  return undefined;
}

/**
 * True when the sample looks binary: it contains a NUL byte, or more than 10% of it is neither
 * valid UTF-8 text nor common control characters (tab, newline, carriage return, form feed, escape).
 */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  if (sample.includes(0)) return true;
  // Plain ASCII text (most source files) needs no decoding: one pass over the bytes.
  let plain = true;
  for (let i = 0; i < sample.length && plain; i++) {
    const byte = sample[i] as number;
    plain =
      byte < 0x80 && (byte >= 0x20 || byte === 9 || byte === 10 || byte === 13 || byte === 12 || byte === 27);
  }
  if (plain) return false;
  let suspicious = 0;
  const text = new TextDecoder("utf-8", { fatal: false }).decode(sample);
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code === 0xfffd) suspicious++;
    else if (code < 0x20 && code !== 9 && code !== 10 && code !== 13 && code !== 12 && code !== 27)
      suspicious++;
  }
  // A sample cut mid-character ends with one replacement character; that alone is not binary.
  return suspicious > Math.max(1, text.length * 0.1);
}
