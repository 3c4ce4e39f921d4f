/**
 * Whether a text holds any of a set of strings (a secret's forms, redact.ts): the multi-string
 * search of Wu and Manber. V8's regular expressions try an alternation of literals at every place
 * of a text, alternative by alternative past a quick look at the first characters: with random
 * secrets (API keys share no prefix) that was ~3 ms a megabyte for three secrets and ~11 for
 * twenty, the larger part of every redaction. This looks at the last two characters of a window as
 * long as the shortest string and moves the window by as much as no string allows a match to be
 * missed: for strings of 30 characters, about one look per 25 characters of text.
 *
 * Only a prefilter: `undefined` when a string is too short for the skips to pay (MIN_LENGTH),
 * and a "yes" is a real occurrence, but the caller then redacts with its regular expression as
 * before, so what is replaced, and how overlapping secrets resolve, does not change.
 */

/**
 * The shortest string the finder takes (redact.ts looks for shorter forms with a small regular
 * expression of their own): the skips are up to one less than the shortest string, and at 10 the
 * look through a 23 MB output under two short keys that share a prefix took 35 ms where the
 * regular expression alone took 26; at 16, 32 ms, and random 32-character secrets gain as much.
 */
export const MIN_LENGTH = 16;

/** Two characters to a slot of the shift table: 64 Ki slots, collisions only shorten shifts. */
const MASK = 0xffff;
const slot = (a: number, b: number) => ((a << 5) ^ b) & MASK;

/** A finder over `strings` (each of at least MIN_LENGTH characters), or undefined when one is shorter. */
export function createFormFinder(strings: readonly string[]): ((text: string) => boolean) | undefined {
  if (strings.length === 0) return undefined;
  // A loop, not Math.min(...): the forms of thousands of masked values would pass its argument limit.
  let window = Number.POSITIVE_INFINITY;
  for (const s of strings) window = Math.min(window, s.length);
  if (window < MIN_LENGTH) return undefined;
  // shift[s]: how far the window may move when its last two characters fall in slot s, so that
  // no string whose first `window` characters hold that pair at some place is passed over.
  const shift = new Uint8Array(MASK + 1).fill(Math.min(255, window - 1));
  // The strings whose first `window` characters end in each slot: checked whole where it is 0.
  const ending = new Map<number, string[]>();
  for (const s of strings) {
    for (let end = 1; end < window; end++) {
      const at = slot(s.charCodeAt(end - 1), s.charCodeAt(end));
      shift[at] = Math.min(shift[at]!, window - 1 - end);
    }
    const last = slot(s.charCodeAt(window - 2), s.charCodeAt(window - 1));
    const list = ending.get(last);
    if (list) list.push(s);
    else ending.set(last, [s]);
  }
  return (text) => {
    const length = text.length;
    let end = window - 1;
    while (end < length) {
      const at = slot(text.charCodeAt(end - 1), text.charCodeAt(end));
      const step = shift[at]!;
      if (step > 0) {
        end += step;
        continue;
      }
      const start = end - window + 1;
      for (const s of ending.get(at) ?? []) if (text.startsWith(s, start)) return true;
      end++;
    }
    return false;
  };
}
