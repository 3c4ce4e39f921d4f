/**
 * The fast path of a single exact edit, done on the file's bytes.
 *
 * The file is never decoded as a whole: the old text is searched as UTF-8 bytes, the new file is
 * written as slices of the old buffer around the new text, and only a window around the changes
 * is decoded for the diff. Memory is the file's size once, plus the window. CRLF files (every line
 * break CRLF) get the edit's line breaks as CRLF, as the string path does; a BOM is left untouched.
 * Returns undefined when the text does not match exactly once (or at all, with replaceAll): the
 * caller then takes the string path, which tries the tolerant match and reports errors.
 *
 * SERIALISED like confined-fs.ts (the exec server does an edit where the file is, from this
 * function's source text): the body uses nothing but its parameters and globals.
 */

export interface BytesEdit {
  /** The new file content, in order. */
  parts: Uint8Array[];
  replacements: number;
  /** Old and new text of the changed window, LF line breaks, no BOM. */
  before: string;
  after: string;
  /** Lines of the file above the window. */
  lineOffset: number;
}

/** Applies one exact edit to `raw`, or returns undefined when the string path must take over. */
export function exactBytesEdit(
  raw: Buffer,
  edit: { oldText: string; newText: string; replaceAll?: boolean | undefined },
): BytesEdit | undefined {
  const CONTEXT_LINES = 4;

  function usesCrlfBytes(bytes: Buffer): boolean {
    let lineFeeds = 0;
    let crlf = 0;
    for (let index = bytes.indexOf(10); index !== -1; index = bytes.indexOf(10, index + 1)) {
      lineFeeds++;
      if (index > 0 && bytes[index - 1] === 13) crlf++;
    }
    return crlf > 0 && crlf === lineFeeds;
  }

  /** Start of the line holding `index`, moved back `lines` more lines. */
  function lineStartBefore(bytes: Buffer, index: number, lines: number): number {
    let at = index > 0 ? bytes.lastIndexOf(10, index - 1) + 1 : 0;
    for (let i = 0; i < lines && at > 0; i++) at = at >= 2 ? bytes.lastIndexOf(10, at - 2) + 1 : 0;
    return at;
  }

  /** End (after the line feed) of the line holding the byte before `index`, moved on `lines` more lines. */
  function lineEndAfter(bytes: Buffer, index: number, lines: number): number {
    const first = bytes.indexOf(10, Math.max(0, index - 1));
    let at = first === -1 ? bytes.length : first + 1;
    for (let i = 0; i < lines && at < bytes.length; i++) {
      const next = bytes.indexOf(10, at);
      at = next === -1 ? bytes.length : next + 1;
    }
    return at;
  }

  function countLineFeeds(bytes: Buffer, end: number): number {
    let count = 0;
    for (let index = bytes.indexOf(10); index !== -1 && index < end; index = bytes.indexOf(10, index + 1))
      count++;
    return count;
  }

  function toLf(text: string, crlf: boolean, atStart: boolean): string {
    const withoutBom = atStart && text.startsWith("\uFEFF") ? text.slice(1) : text;
    return crlf ? withoutBom.replace(/\r\n/g, "\n") : withoutBom;
  }

  const crlf = usesCrlfBytes(raw);
  const lineBreaks = (text: string) => (crlf ? text.replace(/\r\n/g, "\n").replace(/\n/g, "\r\n") : text);
  const oldBytes = Buffer.from(lineBreaks(edit.oldText), "utf8");
  const newBytes = Buffer.from(lineBreaks(edit.newText), "utf8");
  if (oldBytes.length === 0) return undefined;
  const starts: number[] = [];
  for (
    let index = raw.indexOf(oldBytes);
    index !== -1;
    index = raw.indexOf(oldBytes, index + oldBytes.length)
  ) {
    starts.push(index);
    if (!edit.replaceAll && starts.length > 1) return undefined;
  }
  if (starts.length === 0) return undefined;

  const parts: Uint8Array[] = [];
  let last = 0;
  for (const start of starts) {
    parts.push(raw.subarray(last, start), newBytes);
    last = start + oldBytes.length;
  }
  parts.push(raw.subarray(last));

  const windowStart = lineStartBefore(raw, starts[0]!, CONTEXT_LINES);
  const windowEnd = lineEndAfter(raw, starts[starts.length - 1]! + oldBytes.length, CONTEXT_LINES);
  const afterParts: Uint8Array[] = [];
  let cursor = windowStart;
  for (const start of starts) {
    afterParts.push(raw.subarray(cursor, start), newBytes);
    cursor = start + oldBytes.length;
  }
  afterParts.push(raw.subarray(cursor, windowEnd));
  return {
    parts,
    replacements: starts.length,
    before: toLf(raw.subarray(windowStart, windowEnd).toString("utf8"), crlf, windowStart === 0),
    after: toLf(Buffer.concat(afterParts).toString("utf8"), crlf, windowStart === 0),
    lineOffset: countLineFeeds(raw, windowStart),
  };
}
