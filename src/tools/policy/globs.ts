/**
 * Command patterns: globs over the whole text of a simple command, words joined by single spaces
 * with quotes removed; `*` matches any run of characters (slashes and spaces included), `?` one
 * character, everything else itself; whitespace runs count as one space. Matching is a dynamic
 * programme over pattern × text (no regex backtracking, so a long command cannot stall it).
 *
 * A pattern *names* a character when a literal character of the pattern matches it, not a `*` or
 * a `?`: `npm run lint*` matches `npm run lint --node-options=x` but names none of its option.
 */
import type { Risk, Word } from "./types.ts";

/** Whole-text glob match. */
export function globMatch(pattern: string, text: string): boolean {
  return wildcardMatch(normalizePattern(pattern), text.trim().replace(/\s+/g, " "), undefined);
}

/** The outcome of matching a pattern against a command whose risky words must be named. */
export type NamingMatch = { kind: "named" } | { kind: "no-match" } | { kind: "unnamed"; risk: Risk };

/**
 * Matches `pattern` against `tokens` (the words of one view of a command, in order) so that the
 * first `chars` characters of each risk's word come from the pattern's literal text. A risk whose
 * word is not among `tokens`, or is hidden (no pattern can name it), is never named.
 */
export function matchNaming(pattern: string, tokens: readonly Word[], risks: readonly Risk[]): NamingMatch {
  const normalized = normalizePattern(pattern);
  const built = buildText(tokens);
  if (!wildcardMatch(normalized, built.text, undefined)) return { kind: "no-match" };
  if (risks.length === 0) return { kind: "named" };
  const required = new Uint8Array(built.text.length);
  for (const risk of risks) {
    const span = built.spans.get(risk.word);
    if (span === undefined || risk.word.hidden) return { kind: "unnamed", risk };
    required.fill(1, span.start, Math.min(span.end, span.start + risk.chars));
  }
  if (wildcardMatch(normalized, built.text, required)) return { kind: "named" };
  // Which one is not named: the first that fails alone, for the reason.
  for (const risk of risks) {
    const span = built.spans.get(risk.word)!;
    const alone = new Uint8Array(built.text.length);
    alone.fill(1, span.start, Math.min(span.end, span.start + risk.chars));
    if (!wildcardMatch(normalized, built.text, alone)) return { kind: "unnamed", risk };
  }
  return { kind: "unnamed", risk: risks[0]! };
}

/** The text of `tokens` joined by single spaces, whitespace runs collapsed, and where each token lies. */
export function buildText(tokens: readonly { text: string }[]): {
  text: string;
  spans: Map<unknown, { start: number; end: number }>;
} {
  let text = "";
  const spans = new Map<unknown, { start: number; end: number }>();
  for (const token of tokens) {
    if (text !== "" && !text.endsWith(" ")) text += " ";
    const start = text.length;
    text += token.text.replace(/\s+/g, " ");
    spans.set(token, { start, end: text.length });
  }
  return { text: text.trimEnd(), spans };
}

function normalizePattern(pattern: string): string {
  return pattern.trim().replace(/\s+/g, " ");
}

/**
 * `pattern` matches all of `text`; a position marked in `required` must be matched by a literal
 * pattern character. O(pattern × text) time, O(text) memory.
 */
function wildcardMatch(pattern: string, text: string, required: Uint8Array | undefined): boolean {
  const n = text.length;
  let previous = new Uint8Array(n + 1);
  previous[0] = 1;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    const current = new Uint8Array(n + 1);
    if (char === "*") {
      current[0] = previous[0]!;
      for (let j = 1; j <= n; j++) current[j] = previous[j] || (current[j - 1] && !required?.[j - 1]) ? 1 : 0;
    } else if (char === "?") {
      for (let j = 1; j <= n; j++) current[j] = previous[j - 1] && !required?.[j - 1] ? 1 : 0;
    } else {
      for (let j = 1; j <= n; j++) current[j] = previous[j - 1] && text[j - 1] === char ? 1 : 0;
    }
    previous = current;
  }
  return previous[n] === 1;
}
