/**
 * Prompt hygiene for text taken from events (PR and issue titles and bodies, comments): what a
 * person reading the page on GitHub does not see must not reach the model either, and no event
 * can flood the prompt. Removed: HTML comments (`<!-- … -->`, an unclosed one to the end), the
 * Markdown comment idiom (`[//]: # (…)`), elements hidden by a `hidden` attribute or a
 * `display:none` / `visibility:hidden` / zero-size style, collapsed `<details>` bodies (the
 * `<summary>` is kept, with a marker), invisible characters (Unicode format characters: zero-width
 * and bidi controls, tag characters; variation selectors; C0/C1 controls but tab and newline).
 * Then the text is capped at `maxChars`, with a note saying how much was cut.
 */

/** Default cap on a piece of untrusted text: 20,000 characters. */
export const DEFAULT_UNTRUSTED_MAX_CHARS = 20_000;

export interface SanitizeOptions {
  /** Characters kept (the note included). Default: 20,000. */
  maxChars?: number;
  /** Keep the bodies of `<details>` blocks instead of replacing them with a marker. Default: false. */
  keepDetails?: boolean;
}

const HIDDEN_STYLE =
  /display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])/i;
// Format characters (zero-width, bidi, tags), variation selectors, Hangul fillers, controls but tab and newline.
const INVISIBLE = new RegExp(
  [
    "\\p{Cf}",
    "[\\u{FE00}-\\u{FE0F}\\u{E0100}-\\u{E01EF}]",
    "[\\u115F\\u1160\\u3164\\uFFA0]",
    "[^\\P{Cc}\\t\\n]",
  ].join("|"),
  "gu",
);

/** Returns `text` as a reader sees it on GitHub, capped. Never throws. */
export function sanitizeUntrustedText(text: string, options: SanitizeOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_UNTRUSTED_MAX_CHARS;
  let out = text.replace(/\r\n?/g, "\n");
  out = out.replace(/<!--[\s\S]*?(?:-->|$)/g, "");
  out = out.replace(
    /^[ \t]*\[[^\]\n]*\]:[ \t]*(?:#|<>)(?:[ \t]+(?:\([^\n]*\)|"[^\n]*"|'[^\n]*'))?[ \t]*$/gm,
    "",
  );
  out = removeHiddenElements(out);
  if (!options.keepDetails) out = collapseDetails(out);
  out = out.replace(INVISIBLE, "");
  out = out.replace(/\n{3,}/g, "\n\n").trim();
  return cap(out, maxChars);
}

/** Elements (and their content) hidden by an attribute or a style; nested same-name tags are not tracked. */
function removeHiddenElements(text: string): string {
  const open = /<([a-z][a-z0-9-]*)\b([^>]*)>/gi;
  let out = text;
  for (let guard = 0; guard < 1000; guard++) {
    let found: { start: number; end: number } | undefined;
    for (const match of out.matchAll(open)) {
      const [whole, tag = "", attrs = ""] = match;
      if (!/(?:^|\s)hidden(?:\s|=|\/|$)/i.test(attrs) && !HIDDEN_STYLE.test(attrs)) continue;
      const start = match.index ?? 0;
      const close = new RegExp(`</${tag}\\s*>`, "i").exec(out.slice(start + whole.length));
      const end = close ? start + whole.length + (close.index ?? 0) + close[0].length : out.length;
      found = { start, end: whole.endsWith("/>") ? start + whole.length : end };
      break;
    }
    if (!found) return out;
    out = out.slice(0, found.start) + out.slice(found.end);
  }
  return out;
}

function collapseDetails(text: string): string {
  return text.replace(/<details\b[^>]*>([\s\S]*?)(?:<\/details\s*>|$)/gi, (_whole, body: string) => {
    const summary = /<summary\b[^>]*>([\s\S]*?)<\/summary\s*>/i.exec(body)?.[1]?.trim();
    return `${summary ? `${summary} ` : ""}[collapsed section left out]`;
  });
}

function cap(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const note = (cut: number) => `\n\n[… ${cut} more characters left out]`;
  const keep = Math.max(0, maxChars - note(text.length).length);
  // Do not split a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[keep - 1] ?? "") ? keep - 1 : keep;
  return text.slice(0, end) + note(text.length - end);
}
