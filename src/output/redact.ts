/**
 * Secret redaction for every output (events, summary, patch, usage, terminal) and every request to
 * the model. A secret is the value of a credential-looking environment variable, an `extra` value,
 * or one `add`ed later (e.g. from `::add-mask::`). Each is also matched in its JSON-escaped (once
 * and twice), URL-encoded and base64 forms (base64 also inside the base64 of a longer text, at any of the
 * three offsets: see `base64Cores`, and across the line breaks of base64 wrapped at 76 or 64
 * characters), and each line of a multi-line secret on its own. All forms
 * are matched by one combined regular expression, longest first, so a long text is scanned once
 * whatever the number of secrets; it runs only on a text a faster search (form-finder.ts) says
 * holds one. Then tokens of a known shape (`ghp_…`, `sk-…`, `AKIA…`: see token-shapes.ts) are
 * replaced too, known or not.
 */
import { isSecretName } from "../system/env.ts";
import { createFormFinder, MIN_LENGTH as MIN_FINDER_LENGTH } from "./form-finder.ts";
import {
  BASE64_ALPHABET,
  base64Cores,
  hasWrappedBase64Line,
  redactTokenShapes,
  redactWrappedBase64,
} from "./token-shapes.ts";

/** What a secret is replaced with. */
export const REDACTED = "***";
/** Values shorter than this are not treated as secrets (too likely to match ordinary text). */
export const MIN_SECRET_LENGTH = 6;

/** What a caller knows of a text it has redacted: lets `redact` skip a look. */
export interface TextFacts {
  /** Whether the text holds a run of 27 or more base64 characters (token-shapes.ts hasBase64RunIn), when known. */
  base64Runs?: boolean;
  /** True: the text will not be asked about again (a piece of a file), so it is not remembered. */
  once?: boolean;
}

export interface Redactor {
  /** `text` with every known secret replaced by `***`. */
  redact(text: string, facts?: TextFacts): string;
  /** A copy of `value` with every string (keys included) redacted; non-plain objects are kept as they are. */
  redactDeep<T>(value: T): T;
  /** Adds a secret; values shorter than MIN_SECRET_LENGTH are ignored. */
  add(secret: string): void;
  /**
   * `text` holding raw bytes one char each (decoded as latin1) with every secret's UTF-8 bytes
   * replaced by `***`: `redact` does the same to such a text for secrets in ASCII, this for the
   * others. For bytes that need not be valid UTF-8, such as a patch.
   */
  redactLatin1(text: string): string;
  /** Where a text may be cut in two that `redact` then redacts as it would the whole (see PieceCuts). */
  pieceCuts(): PieceCuts;
  /** Grows whenever `add` brings a new secret: a text found clean under an older version may not be. */
  readonly version: number;
}

/**
 * Where a text too long to redact at once (a saved output of many MB) may be cut into pieces so
 * that no match of `redact` lies across a cut. Each match holds only characters of a form of a
 * secret, of a token's shape or of base64 (runs, and blocks of wrapped base64 over several lines),
 * so a cut just after any other character is safe, and so is one after a line feed when no form
 * holds a line break and the line it ends is not a whole line of wrapped base64 (a block goes on
 * past such a line only). Anywhere else, `reach` characters on each side of the cut must be looked
 * at first: a match that lies across it lies within them, unless it is a base64 run or block, which
 * is then found in the piece that holds the token or form inside it.
 */
export interface PieceCuts {
  /** By ASCII code: 1 for a character no match holds. */
  separators: Uint8Array;
  /** Whether a line feed may end a piece (when the line it ends is not a whole line of base64). */
  lineFeeds: boolean;
  /** UTF-8 bytes on each side of an unsafe cut that hold any match lying across it. */
  reach: number;
}

/**
 * The least `reach`: 1 KiB, over the longest token shape (`sk-` and 400 characters) in wrapped
 * base64 (~560 characters), with room for the line that holds the start of its block.
 */
const MIN_REACH = 1024;

export interface RedactorOptions {
  /** Environment to take credential values from. Default: none. */
  env?: Record<string, string | undefined>;
  /** Further secret values (e.g. API keys passed as inputs). */
  extra?: string[];
}

/**
 * Whether an environment variable name looks like it holds a credential: the same rule that scrubs
 * the bash child's environment (`isSecretName`, src/system/env.ts), so whatever the tools hide from
 * the model's commands every output hides too.
 */
export const isCredentialName: (name: string) => boolean = isSecretName;

/** Each redactor's secrets as they were added, for `redactorSecrets`. */
const secretsOf = new WeakMap<Redactor, string[]>();

/**
 * The secrets `redactor` was given (those that brought a form), in order: another thread builds
 * the same redactor from them (createRedactor's `extra`). Undefined for a redactor not made by
 * createRedactor. Not on the interface: nothing outside the runner should read them back.
 */
export function redactorSecrets(redactor: Pick<Redactor, "redact">): readonly string[] | undefined {
  return secretsOf.get(redactor as Redactor);
}

/** Creates a redactor over the credential variables of `env` plus `extra`. */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const forms = new Set<string>();
  const secrets: string[] = [];
  let pattern: RegExp | undefined;
  let dirty = false;
  let version = 0;

  const add = (secret: string): void => {
    if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) return;
    const before = forms.size;
    for (const form of formsOf(secret)) if (form.length >= MIN_SECRET_LENGTH) forms.add(form);
    if (forms.size !== before) {
      secrets.push(secret);
      dirty = true;
      version++;
    }
  };

  // The same alternation twice: global for replacing, and not for testing (no lastIndex to reset).
  let probe: RegExp | undefined;
  // The forms that are not ASCII, as their UTF-8 bytes in latin1.
  let bytePattern: RegExp | undefined;
  // Whether a text holds a form; undefined when the forms are too short for it to pay.
  let holdsForm: ((text: string) => boolean) | undefined;
  const currentPattern = (): RegExp | undefined => {
    if (dirty) {
      const sorted = [...forms].sort((a, b) => b.length - a.length);
      const source = sorted.map(escapeRegExp).join("|");
      pattern = sorted.length > 0 ? new RegExp(source, "g") : undefined;
      probe = sorted.length > 0 ? new RegExp(source) : undefined;
      // The forms too short for the finder are looked for by a regular expression of their own,
      // small as they are few (a short secret's raw and escaped forms; its base64 is longer).
      const long = sorted.filter((form) => form.length >= MIN_FINDER_LENGTH);
      const short = sorted.filter((form) => form.length < MIN_FINDER_LENGTH);
      const finder = createFormFinder(long);
      const shortProbe = short.length > 0 ? new RegExp(short.map(escapeRegExp).join("|")) : undefined;
      holdsForm =
        finder === undefined
          ? undefined
          : shortProbe === undefined
            ? finder
            : (text) => shortProbe.test(text) || finder(text);
      const bytes = sorted
        .filter((form) => Buffer.byteLength(form) !== form.length)
        .map((form) => Buffer.from(form).toString("latin1"));
      bytes.sort((a, b) => b.length - a.length);
      bytePattern = bytes.length > 0 ? new RegExp(bytes.map(escapeRegExp).join("|"), "g") : undefined;
      dirty = false;
    }
    return pattern;
  };

  const memo = createRedactionMemo();
  let memoVersion = version;
  const redact = (text: string, facts?: TextFacts): string => {
    if (typeof text !== "string" || text.length < MIN_SECRET_LENGTH) return text;
    if (memoVersion !== version) {
      memo.clear();
      memoVersion = version;
    }
    if (facts?.once) return redactOnce(text, facts);
    const known = memo.get(text);
    if (known !== undefined) return known;
    const out = redactOnce(text, facts);
    memo.set(text, out);
    return out;
  };

  const redactOnce = (text: string, facts: TextFacts | undefined): string => {
    const current = currentPattern();
    const runs = facts?.base64Runs;
    // Looked for once, where the first step needs it; the token shapes reuse the answer. A line of
    // wrapped base64 is a run of 64, so a text without a run of 27 has none.
    let wrapped: boolean | undefined = runs === false ? false : undefined;
    let out = text;
    if (current && probe) {
      const holds = probe;
      // The finder where the forms allow it: a block of wrapped base64 is most of a text that has
      // one, and the alternation tried at each of its places was an eighth of a base64 dump's look.
      const find = holdsForm ?? ((joined: string) => holds.test(joined));
      wrapped ??= hasWrappedBase64Line(text);
      // Wrapped base64 first: redacting a form inside one of its lines would hide the block.
      out = redactWrappedBase64(out, find, wrapped);
      if (holdsForm === undefined || holdsForm(out)) out = out.replace(current, REDACTED);
    }
    return redactTokenShapes(out, wrapped, runs);
  };

  const redactLatin1 = (text: string): string => {
    currentPattern();
    if (!bytePattern || text.length < MIN_SECRET_LENGTH) return text;
    return text.replace(bytePattern, REDACTED);
  };

  const redactDeep = <T>(value: T): T => mapStrings(value, redact);

  let cuts: PieceCuts | undefined;
  let cutsVersion = -1;
  const pieceCuts = (): PieceCuts => {
    if (cuts && cutsVersion === version) return cuts;
    const separators = new Uint8Array(128).fill(1);
    for (const char of `${BASE64_ALPHABET}-_=\r\n`) separators[char.charCodeAt(0)] = 0;
    let longest = 0;
    let lineFeeds = true;
    for (const form of forms) {
      for (let i = 0; i < form.length; i++) {
        const code = form.charCodeAt(i);
        if (code < 128) separators[code] = 0;
      }
      longest = Math.max(longest, Buffer.byteLength(form));
      if (form.includes("\n") || form.includes("\r")) lineFeeds = false;
    }
    // Twice the longest form: a form's base64 wrapped over lines, with their breaks, is in reach.
    cuts = { separators, lineFeeds, reach: Math.max(MIN_REACH, 2 * longest) };
    cutsVersion = version;
    return cuts;
  };

  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value !== undefined && isCredentialName(name)) add(value);
  }
  for (const value of options.extra ?? []) add(value);
  const redactor: Redactor = {
    redact,
    redactDeep,
    add,
    redactLatin1,
    pieceCuts,
    get version() {
      return version;
    },
  };
  secretsOf.set(redactor, secrets);
  return redactor;
}

/**
 * Characters of text one generation of a redactor's memo holds: 1 Mi. A text comes back within
 * its turn (its events, the renderer, the next request): a turn's results fit.
 */
const MEMO_CHARS = 1024 * 1024;
/** Texts one generation of the memo holds. */
const MEMO_TEXTS = 8192;
/**
 * The longest text the memo keeps: 256 Ki characters. What comes back is a message or a tool's
 * result (50 KB at most by default); a longer one would push a turn's others out.
 */
const MEMO_MAX_TEXT = 256 * 1024;

/**
 * What `redact` gave for the texts it saw last. The same text is redacted several times on its
 * way out (a tool's result in two events, the renderer's copy of both, the next request), and a
 * scan of a big text costs 0.2-1 ms per 40 KB. Two generations: a text seen again moves to the
 * young one, and when that is full the old one is dropped, so what is held stays bounded (two
 * generations' texts and their redacted forms) whatever the run's length.
 */
function createRedactionMemo(): {
  get(text: string): string | undefined;
  set(text: string, redacted: string): void;
  clear(): void;
} {
  let young = new Map<string, string>();
  let old = new Map<string, string>();
  let chars = 0;
  const set = (text: string, redacted: string) => {
    if (text.length > MEMO_MAX_TEXT) return;
    if (chars + text.length > MEMO_CHARS || young.size >= MEMO_TEXTS) {
      old = young;
      young = new Map();
      chars = 0;
    }
    young.set(text, redacted);
    chars += text.length;
  };
  return {
    get(text) {
      if (text.length > MEMO_MAX_TEXT) return undefined;
      const found = young.get(text);
      if (found !== undefined) return found;
      const aged = old.get(text);
      if (aged !== undefined) {
        old.delete(text);
        set(text, aged);
      }
      return aged;
    },
    set,
    clear() {
      young = new Map();
      old = new Map();
      chars = 0;
    },
  };
}

function formsOf(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  // JSON of JSON too: a secret in a JSON text that is itself put in a JSON string (a tool printing
  // `JSON.stringify` of a document that holds `JSON.stringify(process.env)`) is escaped twice.
  const forms = [secret, json, JSON.stringify(json).slice(1, -1), encodeURIComponent(secret)];
  const bytes = Buffer.from(secret, "utf8");
  const base64 = bytes.toString("base64");
  forms.push(base64, base64.replace(/=+$/, ""), bytes.toString("base64url"));
  for (const core of base64Cores(bytes)) forms.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  const lines = secret.split(/\r?\n/).map((line) => line.trim());
  if (lines.length > 1) forms.push(...lines);
  return forms;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/**
 * A copy of `value` with every string in it (keys included) passed through `map`, as `redactDeep`
 * makes it: plain objects, arrays and errors are copied, other objects kept as they are.
 */
export function mapStrings<T>(value: T, map: (text: string) => string): T {
  return deepMap(value, map, new WeakMap()) as T;
}

function deepMap(value: unknown, redact: (text: string) => string, seen: WeakMap<object, unknown>): unknown {
  if (typeof value === "string") return redact(value);
  if (value === null || typeof value !== "object") return value;
  const cached = seen.get(value);
  if (cached !== undefined) return cached;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(deepMap(item, redact, seen));
    return copy;
  }
  if (value instanceof Error) {
    const copy = new Error(redact(value.message));
    copy.name = value.name;
    if (value.stack) copy.stack = redact(value.stack);
    seen.set(value, copy);
    return copy;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const copy: Record<string, unknown> = {};
  seen.set(value, copy);
  for (const [key, item] of Object.entries(value)) copy[redact(key)] = deepMap(item, redact, seen);
  return copy;
}
