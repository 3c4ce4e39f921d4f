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

/**
 * Elements (and their content) hidden by an attribute or a style; nested same-name tags are not
 * tracked. One pass, left to right, with no cap: the text is read once and what is kept is
 * collected, so the cost stays linear however many hidden elements there are. A removal can join
 * a `<` left before it with a tag name after it into a new tag (`<<i hidden></i>i hidden>…`);
 * that joined tag is checked too, as it would be by a reader rescanning the result.
 */
function removeHiddenElements(text: string): string {
  // Every tag ends with ">": searching only up to the last one keeps a failed search from
  // rescanning the tail once per "<" in it.
  const subject = text.slice(0, text.lastIndexOf(">") + 1);
  const open = /<([a-z][a-z0-9-]*)\b([^>]*)>/gi;
  const joined = /([a-z][a-z0-9-]*)\b([^>]*)>/iy;
  const kept: string[] = [];
  let pos = 0; // start of the text not yet kept or removed
  open.lastIndex = 0;
  for (let match = open.exec(subject); match; match = open.exec(subject)) {
    const [whole, tag = "", attrs = ""] = match;
    if (!isHidden(attrs)) continue;
    if (match.index > pos) kept.push(text.slice(pos, match.index));
    pos = elementEnd(text, match.index + whole.length, tag, whole);
    // A "<" kept just before the removal and the text after it may now form a tag.
    for (;;) {
      const last = kept.length - 1;
      if (!kept[last]?.endsWith("<")) break;
      joined.lastIndex = pos;
      const tail = joined.exec(subject);
      if (!tail) break;
      const [rest, joinedTag = "", joinedAttrs = ""] = tail;
      if (!isHidden(joinedAttrs)) {
        // A plain tag: kept as is, and scanning goes on after it.
        open.lastIndex = pos + rest.length;
        break;
      }
      kept[last] = kept[last]!.slice(0, -1);
      if (kept[last] === "") kept.pop();
      pos = elementEnd(text, pos + rest.length, joinedTag, `<${rest}`);
    }
    if (open.lastIndex < pos) open.lastIndex = pos;
  }
  kept.push(text.slice(pos));
  return kept.join("");
}

function isHidden(attrs: string): boolean {
  return /(?:^|\s)hidden(?:\s|=|\/|$)/i.test(attrs) || HIDDEN_STYLE.test(attrs);
}

/** Where an element whose opening tag ends at `from` ends: after its closing tag, or at the end of the text. */
function elementEnd(text: string, from: number, tag: string, opening: string): number {
  if (opening.endsWith("/>")) return from;
  const close = new RegExp(`</${tag}\\s*>`, "gi");
  close.lastIndex = from;
  const found = close.exec(text);
  return found ? found.index + found[0].length : text.length;
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
