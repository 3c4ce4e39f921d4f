/**
 * The second net of redaction: credentials recognised by their shape, for values the runner was
 * never told about (a token in a file the model read, a key in a command's output). Shapes:
 * GitHub tokens (`ghp_`, `gho_`, `ghs_`, `ghu_`, `ghr_` + 36 or more letters and digits;
 * `github_pat_` + 22 or more), Anthropic and OpenAI keys (`sk-ant-…`, `sk-proj-…`, `sk-…`: 20 or
 * more key characters holding a digit and an upper-case letter), AWS access key ids (`AKIA`/`ASIA`
 * + 16, except AWS's documented `…EXAMPLE` ids) and Slack tokens (`xoxb-`, `xoxp-`, … + 20 or more).
 *
 * Their characters are all URL-safe and none is escaped by JSON, so the raw pattern also finds
 * them JSON-escaped and URL-encoded. Base64 is decoded: a run of base64 (one line, or lines
 * wrapped at 64 or 76 characters) whose text holds a token is replaced whole, at whatever offset
 * the token starts. A run is decoded only when it holds the base64 of a token prefix, so ordinary
 * text costs one scan.
 */

/** What a recognised token (or the base64 run holding one) is replaced with; the same as a known secret's. */
const REDACTED = "***";

const SHAPES =
  /(?<![A-Za-z0-9_-])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}|sk-[A-Za-z0-9_-]{20,400}|A[KS]IA[0-9A-Z]{16}|xox[abposr]-[A-Za-z0-9-]{20,255})(?![A-Za-z0-9_-])/g;

/** The shortest token any shape matches (an AWS key id), in characters. */
const MIN_TOKEN = 20;

/** Token prefixes, for the base64 prefilter. */
const PREFIXES = [
  "ghp_",
  "gho_",
  "ghs_",
  "ghu_",
  "ghr_",
  "github_pat_",
  "sk-",
  "AKIA",
  "ASIA",
  ...["a", "b", "o", "p", "r", "s"].map((c) => `xox${c}-`),
];

/**
 * Base64 runs (`base64Spans` finds them): lines wrapped at 76 (MIME, `base64`) or 64 (PEM,
 * `openssl`) characters joined with the line after them, or one line long enough to hold the
 * shortest token encoded. As a regular expression, which the tests hold the finder to:
 *
 *     (?<![A-Za-z0-9+/_-])(?:(?:[A-Za-z0-9+/]{76}\r?\n|[A-Za-z0-9+/]{64}\r?\n)+[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9+/_-]{27,}={0,2})
 *
 * Blocks of wrapped base64 are that expression's first alternative alone.
 */
const RUN_MIN = 27;

/** Whether a match of SHAPES is a credential rather than text that looks like one. */
function plausible(token: string): boolean {
  if (token.startsWith("sk-")) return /[0-9]/.test(token) && /[A-Z]/.test(token.slice(3));
  if (token.startsWith("AKIA") || token.startsWith("ASIA")) return !token.endsWith("EXAMPLE");
  if (token.startsWith("xox")) return /[0-9]/.test(token);
  return true;
}

/**
 * The base64 characters that `bytes` always encode to, whatever precedes and follows them, for each
 * of the three offsets (mod 3) they can start at: the groups' characters that hold no bit of a
 * neighbouring byte. A secret's three cores find it inside the base64 of a longer text.
 */
export function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (const shift of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes])
      .toString("base64")
      .replace(/=+$/, "");
    // With 1 (2) bytes before it, the first 2 (3) characters hold bits of those bytes; when the
    // bytes do not end a 3-byte group, the last character holds bits of the next byte.
    const start = [0, 2, 3][shift] ?? 0;
    const end = (shift + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
    if (end > start) cores.push(encoded.slice(start, end));
  }
  return cores;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/**
 * A regular expression source that matches where one of `words` starts, for `test` only: the
 * words as a tree of their shared beginnings, so that V8 tries each character against the few
 * that may come next rather than each word in turn (see docs/benchmarks.md, twenty-ninth
 * session), and a word that goes on past a shorter one left out (the shorter one matches first).
 */
export function prefixTreeSource(words: Iterable<string>): string {
  interface Node {
    next: Map<string, Node>;
    end: boolean;
  }
  const root: Node = { next: new Map(), end: false };
  for (const word of words) {
    let node = root;
    for (const char of word) {
      let child = node.next.get(char);
      if (!child) {
        child = { next: new Map(), end: false };
        node.next.set(char, child);
      }
      node = child;
    }
    node.end = true;
  }
  // No word: a source that matches nowhere (an empty alternation would match everywhere).
  if (root.next.size === 0 && !root.end) return "(?!)";
  const source = (node: Node): string => {
    if (node.end) return "";
    const branches = [...node.next].map(([char, child]) => escapeRegExp(char) + source(child));
    return branches.length === 1 ? (branches[0] ?? "") : `(?:${branches.join("|")})`;
  };
  return source(root);
}

const SIGNATURES = (() => {
  const cores = new Set<string>();
  for (const prefix of PREFIXES) {
    for (const core of base64Cores(Buffer.from(prefix))) {
      cores.add(core);
      cores.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
    }
  }
  return new RegExp(prefixTreeSource(cores));
})();

/** Whether the text of a base64 run (at any of its four character offsets) holds a token. */
function decodesToToken(run: string): boolean {
  const compact = run.includes("\n") ? run.replace(/\r?\n/g, "") : run;
  if (!SIGNATURES.test(compact)) return false;
  for (let offset = 0; offset < 4; offset++) {
    // Node's base64 decoder reads the URL-safe alphabet too and stops at padding.
    const text = Buffer.from(compact.slice(offset), "base64").toString("latin1");
    for (const match of text.matchAll(SHAPES)) if (plausible(match[0])) return true;
  }
  return false;
}

/**
 * Whether `text` may hold the base64 of a token: it holds the base64 of a prefix, maybe cut by a
 * line break of wrapped base64. One scan of the signatures, of the text without its line breaks
 * when it holds wrapped base64, far cheaper than decoding base64 runs.
 */
function mayHoldBase64Token(text: string, wrapped: boolean | undefined): boolean {
  // Without its line breaks the text holds every signature it held with them (none holds a break).
  if (wrapped ?? hasWrappedBase64Line(text)) return SIGNATURES.test(text.replace(/\r?\n/g, ""));
  return SIGNATURES.test(text);
}

/**
 * `text` with each block of wrapped base64 (see `base64Spans`) replaced by `***` when `holds`
 * says its characters, line breaks removed, hold a secret: what a line break hides from a
 * pattern. Costs one look per line when there is no such block.
 */
export function redactWrappedBase64(
  text: string,
  holds: (joined: string) => boolean,
  wrapped = hasWrappedBase64Line(text),
): string {
  if (!wrapped) return text;
  return replaceSpans(text, base64Spans(text, false), (block) =>
    holds(block.replace(/\r?\n/g, "")) ? REDACTED : block,
  );
}

/**
 * Whether a line of `text` is 64 or 76 base64 characters long, as wrapped base64 is. A text
 * without such a line has none after redaction either (`***` is no base64), so a caller
 * redacting in steps asks once and passes the answer on (`wrapped`; a stale "yes" costs only a
 * check).
 */
export function hasWrappedBase64Line(text: string): boolean {
  // Such a line ends with a line feed: a text without one (a piece of a long line) is told at
  // the speed of a memory search, instead of a walk through its runs.
  if (!text.includes("\n")) return false;
  return someRun(
    text,
    64,
    BASE64_CHARS,
    (start, end) =>
      (end - start === 64 || end - start === 76) &&
      (start === 0 || text.charCodeAt(start - 1) === 10) &&
      (text.charCodeAt(end) === 10 || (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10)),
  );
}

/**
 * Whether `text` has a run of 27 or more base64 or base64url characters: every match of
 * BASE64_RUN lies in one (a wrapped line is 64 or more), so without one there is nothing to decode
 * and the signatures need no look. Checked by hand because V8 compiles a regular expression for
 * the strings of its first few uses: after a run's short messages, the signatures took 53 ms over
 * a 23 MB command output where the same expression fresh took 11; this look takes 5-8.
 */
function hasBase64Run(text: string): boolean {
  return someRun(text, 27, BASE64_OR_URL_CHARS, () => true);
}

/**
 * Whether `text` has a run of `min` or more of the characters marked in `chars` (taken whole: none
 * of them just before or after it) for which `accept(start, end)` holds. The look skips: when the
 * character `min - 1` places past the earliest start a run may still have is not one of them, no
 * run starting up to it is long enough; otherwise the run around it is measured and the look goes
 * on past its end. A big command output's short lines cost a few characters per `min` instead of a
 * search per line or a regular expression tried at every place.
 */
function someRun(
  text: string,
  min: number,
  chars: Uint8Array,
  accept: (start: number, end: number) => boolean,
): boolean {
  // A table, not a predicate per character: with the two callers' predicates the calls stayed
  // polymorphic, three times slower than the loop written out.
  const inRun = (code: number) => code < 128 && chars[code] === 1;
  let probe = min - 1;
  while (probe < text.length) {
    if (!inRun(text.charCodeAt(probe))) {
      probe += min;
      continue;
    }
    let start = probe;
    while (start > 0 && inRun(text.charCodeAt(start - 1))) start--;
    let end = probe + 1;
    while (end < text.length && inRun(text.charCodeAt(end))) end++;
    if (end - start >= min && accept(start, end)) return true;
    probe = end + min;
  }
  return false;
}

/**
 * Whether the UTF-8 `bytes` hold a run of 27 or more base64 or base64url characters: the same
 * answer as hasBase64Run gives for their text (a character of a run is one ASCII byte, and no
 * byte of a multi-byte character, nor a byte decoded as U+FFFD, is ASCII). A text without one
 * holds no base64 for the token shapes to decode and no line of wrapped base64 (64 or more), so
 * `redact` skips both looks (`base64Runs`). For a big saved output, read as bytes: the looks on
 * its text cost more than every other step of its redaction together (a 23 MB `seq` output: ~50
 * of ~70 ms in a run).
 *
 * A window of 27 bytes is looked at from its end back: the first byte not of a run, at `i`, means
 * no window holding `i` is one, so the next ends 27 past it; the bytes after `i` are known to be of
 * a run, so the next window's look stops where this one began. Each byte is read at most once, and
 * short runs are crossed in a few reads.
 */
export function hasBase64RunIn(bytes: Uint8Array): boolean {
  const min = 27;
  const chars = BASE64_OR_URL_CHARS;
  let end = min - 1;
  // Bytes after the last byte found not of a run, up to `known`, are of a run.
  let known = -1;
  while (end < bytes.length) {
    const floor = Math.max(end - min, known);
    let i = end;
    while (i > floor) {
      const byte = bytes[i]!;
      if (byte >= 128 || chars[byte] !== 1) break;
      i--;
    }
    if (i === floor) return true;
    known = end;
    end = i + min;
  }
  return false;
}

/** The characters of base64 (base64url has `-` and `_` for its last two). */
export const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Whether `bytes` (or a text's characters) from `start` to `end` (a line without its break) are
 * a whole line of wrapped base64, 64 or 76 base64 characters, which a block of wrapped base64 may
 * go on past (see `base64Spans`). base64url's characters count too: a line of them is no block's,
 * and saying yes for it only costs a cut.
 */
function isWholeBase64Line(bytes: Uint8Array | string, start: number, end: number): boolean {
  const width = end - start;
  if (width !== 64 && width !== 76) return false;
  for (let i = start; i < end; i++) {
    const code = typeof bytes === "string" ? bytes.charCodeAt(i) : bytes[i]!;
    if (code >= 128 || BASE64_OR_URL_CHARS[code] !== 1) return false;
  }
  return true;
}

/** The characters of wrapped base64's lines, and those of BASE64_RUN's runs (base64url's too), by code. */
/**
 * Whether a block of wrapped base64 may go on past the line feed at `i` of `data`: the line it
 * ends is a whole one (isWholeBase64Line), or may be. `startsLine`: whether `data` begins with a
 * line; when it does not and no line feed comes before `i`, the line began before `data`, and only
 * more than 76 of its characters at hand say it is no whole one.
 */
export function blockMayGoOnPast(data: Uint8Array | string, i: number, startsLine: boolean): boolean {
  const text = typeof data === "string";
  const before = i === 0 ? -1 : text ? data.lastIndexOf("\n", i - 1) : data.lastIndexOf(10, i - 1);
  const lineStart = before + 1;
  const cr = i > lineStart && (text ? data.charCodeAt(i - 1) : data[i - 1]) === 13;
  const lineEnd = cr ? i - 1 : i;
  if (before === -1 && !startsLine && lineEnd <= 76) return true;
  return isWholeBase64Line(data, lineStart, lineEnd);
}

const BASE64_CHARS = charTable(BASE64_ALPHABET);
const BASE64_OR_URL_CHARS = charTable(`${BASE64_ALPHABET}-_`);

function charTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}

/**
 * `text` with every token of a known shape, raw or inside base64, replaced by `***`. `wrapped`:
 * hasWrappedBase64Line of this text or of the text it was redacted from, when known; `runs`:
 * whether that text holds a run of 27 base64 characters (hasBase64RunIn of its bytes), when known.
 * Redaction only ever shortens runs (`***` is none), so a "no" holds for a redacted copy; a stale
 * "yes", like a stale `wrapped`, costs only the looks it would have spared (the run's own check is
 * only a filter: a text holding base64 through and through spends ~45 ms of 23 MB on it).
 */
export function redactTokenShapes(text: string, wrapped?: boolean, runs?: boolean): string {
  if (text.length < MIN_TOKEN) return text;
  const raw = text.replace(SHAPES, (token) => (plausible(token) ? REDACTED : token));
  if (runs === false || (runs !== true && !hasBase64Run(raw)) || !mayHoldBase64Token(raw, wrapped))
    return raw;
  return replaceSpans(raw, base64Spans(raw, true), (run) => (decodesToToken(run) ? REDACTED : run));
}

/**
 * Where base64 runs are in `text` (`runs`), or blocks of wrapped base64 only, as [start, end)
 * pairs in order: the matches a global search with the expression above (or its first
 * alternative) finds, found by hand. V8 tried the expression at every place of a text and kept a
 * place to return to for each character of a line, so a block of wrapped base64 cost ~9 ns a
 * character to find, the largest part of a base64 output's look (a 23 MB `base64` dump: ~200 of
 * ~560 ms, and ~90 more for the runs); this reads each character about once.
 *
 * A match starts where a run of base64 or base64url characters starts (none just before it). A
 * block is one or more whole lines of 76 or 64 base64 characters, then the base64 characters of
 * the line after them and up to two `=`; when that line has none, the last whole line is the
 * block's end (two lines at least, else there is no block there). A run that starts no block is a
 * match when it is 27 characters or more, with up to two `=` after it.
 */
export function base64Spans(text: string, runs: boolean): number[] {
  const spans: number[] = [];
  const length = text.length;
  const inRun = (at: number) => {
    const code = text.charCodeAt(at);
    return code < 128 && BASE64_OR_URL_CHARS[code] === 1;
  };
  /** Where the base64 characters from `at` end. */
  const base64End = (at: number) => {
    let end = at;
    while (end < length) {
      const code = text.charCodeAt(end);
      if (code >= 128 || BASE64_CHARS[code] !== 1) break;
      end++;
    }
    return end;
  };
  /** Where the line break after a whole line of wrapped base64 starting at `at` ends; -1 if none. */
  const wholeLine = (at: number) => {
    const end = base64End(at);
    const width = end - at;
    if (width !== 76 && width !== 64) return -1;
    const code = text.charCodeAt(end);
    if (code === 10) return end + 1;
    return code === 13 && text.charCodeAt(end + 1) === 10 ? end + 2 : -1;
  };
  const withPadding = (end: number) => {
    let padded = end;
    while (padded < length && padded - end < 2 && text.charCodeAt(padded) === 61) padded++;
    return padded;
  };
  let at = 0;
  while (at < length) {
    if (!inRun(at) || (at > 0 && inRun(at - 1))) {
      at++;
      continue;
    }
    let end = -1;
    // Whole lines from here: `last` is where the last one's characters end.
    let next = wholeLine(at);
    let lines = 0;
    let last = at;
    while (next !== -1) {
      lines++;
      last = next;
      next = wholeLine(next);
    }
    if (lines > 0) {
      const tail = base64End(last);
      if (tail > last) end = withPadding(tail);
      // No characters after the last whole line: that line ends the block, its break left out.
      else if (lines > 1) end = last - (text.charCodeAt(last - 2) === 13 ? 2 : 1);
    }
    if (end === -1) {
      // No block here: the run whole, if it is long enough.
      let runEnd = at + 1;
      while (runEnd < length && inRun(runEnd)) runEnd++;
      if (!runs || runEnd - at < RUN_MIN) {
        at = runEnd;
        continue;
      }
      end = withPadding(runEnd);
    }
    spans.push(at, end);
    at = end;
  }
  return spans;
}

/**
 * `text` with each span (pairs of `base64Spans`) replaced by what `replace` gives for its text;
 * `text` itself when nothing changed, which is most of the time.
 */
function replaceSpans(text: string, spans: number[], replace: (span: string) => string): string {
  let out: string | undefined;
  let from = 0;
  for (let i = 0; i < spans.length; i += 2) {
    const start = spans[i]!;
    const end = spans[i + 1]!;
    const span = text.slice(start, end);
    const replaced = replace(span);
    if (replaced === span) continue;
    out = (out ?? "") + text.slice(from, start) + replaced;
    from = end;
  }
  return out === undefined ? text : out + text.slice(from);
}
