/** Text from a task file longer than this is cut in messages (a 5 MB prompt in the wrong place). */
export const MAX_SHOWN_CHARS = 60;

/** Letters, marks, numbers, punctuation, symbols and the plain space: what a terminal shows as is. */
const VISIBLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]*$/u;

/**
 * Text from the user's file as a message shows it: in single quotes, or as a JSON-style string
 * with `\uXXXX` escapes when it holds characters a terminal would hide or garble (a zero-width
 * space in a key, a control character), cut to `MAX_SHOWN_CHARS` with its full length said.
 */
export function showText(text: string): string {
  const { cut, suffix } = shorten(text);
  if (VISIBLE.test(cut) && !cut.includes("'")) return `'${cut}'${suffix}`;
  return `${escaped(cut)}${suffix}`;
}

/** Always the double-quoted, escaped form (`the string "…"`). */
export function showJsonString(text: string): string {
  const { cut, suffix } = shorten(text);
  return `${escaped(cut)}${suffix}`;
}

function shorten(text: string): { cut: string; suffix: string } {
  if (text.length <= MAX_SHOWN_CHARS) return { cut: text, suffix: "" };
  return {
    cut: text.slice(0, MAX_SHOWN_CHARS),
    suffix: `… (${text.length.toLocaleString("en-US")} characters)`,
  };
}

function escaped(text: string): string {
  return JSON.stringify(text).replace(/[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/gu, (char) =>
    [...char].map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
  );
}
