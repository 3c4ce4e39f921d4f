/**
 * Escaping for GitHub-flavoured markdown built from untrusted text (model output, file names, hook
 * messages). Guarantees for text passed through these helpers: no raw HTML (`<`, `>` and `&` are
 * entities outside code), no `@mention` that pings (a zero-width space follows the `@`), and no way
 * to close or break out of the block it is placed in (fences are longer than any backtick run inside).
 */

const ZERO_WIDTH_SPACE = "\u200b";
const INLINE_SPECIALS = /[\\`*_[\]|~#]/g;

/** One line of plain text safe anywhere inline (table cells included): newlines become spaces. */
export function escapeInline(text: string): string {
  return text
    .replace(/\r?\n|\r/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(INLINE_SPECIALS, "\\$&")
    .replace(/@(?=[\w-])/g, `@${ZERO_WIDTH_SPACE}`);
}

/**
 * One line like `escapeInline`, but a backtick-delimited piece (`` `npm run lint` ``, as our
 * messages and models quote commands) is rendered as a code span instead of literal backticks.
 * Each span is rebuilt by `codeSpan`, so its text cannot close it early or reach the markup
 * around it; a backtick run without its closing run is escaped. Not for table cells (a `|` in a
 * code span still splits a GFM table's cell).
 */
export function inlineWithCode(text: string): string {
  const line = text.replace(/\r?\n|\r/g, " ");
  let out = "";
  let plainStart = 0;
  let i = line.indexOf("`");
  while (i !== -1) {
    const run = runLength(line, i, "`");
    const end = findClosingRun(line, i + run, run);
    if (end === -1) {
      i = line.indexOf("`", i + run);
      continue;
    }
    const code = line.slice(i + run, end);
    // A span of spaces, or one whose text is just padding, is shown as the text it is.
    if (code.trim() === "") {
      i = line.indexOf("`", end + run);
      continue;
    }
    out += escapeInline(line.slice(plainStart, i)) + codeSpan(stripSpanPadding(code));
    plainStart = end + run;
    i = line.indexOf("`", plainStart);
  }
  return out + escapeInline(line.slice(plainStart));
}

/** Markdown strips one space each side of a span's text when both are there; so do we. */
function stripSpanPadding(code: string): string {
  return code.length >= 2 && code.startsWith(" ") && code.endsWith(" ") ? code.slice(1, -1) : code;
}

/** `text` as an inline code span on one line, delimited by more backticks than it contains. */
export function codeSpan(text: string): string {
  const line = text.replace(/\r?\n|\r/g, " ");
  const ticks = "`".repeat(longestRun(line, "`") + 1);
  const pad = line.startsWith("`") || line.endsWith("`") || line.startsWith(" ") ? " " : "";
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

/** A fenced code block around `content` whose fence no line of `content` can close. */
export function fencedBlock(content: string, info = ""): string {
  const fence = "`".repeat(Math.max(3, longestRun(content, "`") + 1));
  const body = content.endsWith("\n") || content === "" ? content : `${content}\n`;
  return `${fence}${info}\n${body}${fence}`;
}

/**
 * Markdown written by the model, kept readable but made safe: code spans and fenced blocks are left
 * as they are (markdown does not interpret HTML or mentions inside them), an unclosed fence is
 * closed, and everything else is escaped for HTML and mentions. Returned as a blockquote, so no
 * heading, table or list inside it can reach the surrounding document.
 */
export function quoteMarkdown(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push(...escapeProse(paragraph.join("\n")).split("\n"));
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open?.[1] && !(open[1].startsWith("`") && open[2]?.includes("`"))) {
      flush();
      const marker = open[1];
      out.push(line);
      const close = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}\\s*$`);
      let closed = false;
      for (i++; i < lines.length; i++) {
        const inner = lines[i] ?? "";
        out.push(inner);
        if (close.test(inner)) {
          closed = true;
          break;
        }
      }
      if (!closed) out.push(marker);
      continue;
    }
    if (line.trim() === "") {
      flush();
      out.push("");
      continue;
    }
    paragraph.push(line);
  }
  flush();
  while (out.length > 0 && out.at(-1) === "") out.pop();
  return out.map((line) => (line === "" ? ">" : `> ${line}`)).join("\n");
}

/** Escapes one paragraph, leaving complete code spans (which cannot cross a paragraph) untouched. */
function escapeProse(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? "";
    if (char === "\\") {
      const next = text[i + 1] ?? "";
      if (next !== "" && next !== "@" && /[!-/:-?[-`{-~]/.test(next)) {
        out += char + next;
        i += 2;
      } else {
        out += "\\\\";
        i += 1;
      }
      continue;
    }
    if (char === "`") {
      const run = runLength(text, i, "`");
      const end = findClosingRun(text, i + run, run);
      const stop = end === -1 ? i + run : end + run;
      out += text.slice(i, stop);
      i = stop;
      continue;
    }
    if (char === "&") out += "&amp;";
    else if (char === "<") out += "&lt;";
    else if (char === ">") out += "&gt;";
    else if (char === "@" && /[\w-]/.test(text[i + 1] ?? "")) out += `@${ZERO_WIDTH_SPACE}`;
    else out += char;
    i += 1;
  }
  return out;
}

function findClosingRun(text: string, from: number, length: number): number {
  let i = text.indexOf("`", from);
  while (i !== -1) {
    const run = runLength(text, i, "`");
    if (run === length) return i;
    i = text.indexOf("`", i + run);
  }
  return -1;
}

function runLength(text: string, start: number, char: string): number {
  let end = start;
  while (text[end] === char) end++;
  return end - start;
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let i = text.indexOf(char);
  while (i !== -1) {
    const run = runLength(text, i, char);
    longest = Math.max(longest, run);
    i = text.indexOf(char, i + run);
  }
  return longest;
}
