/**
 * Reading a program's command line with a table of its options: which take a value, which make it
 * run other code or write elsewhere (risky: an allow pattern must name them literally), and for
 * programs whose options are an open set (npm takes any configuration key as `--key=value`, node
 * any V8 flag), the few known to be harmless, every other option counting as risky.
 *
 * Forms read: `--name`, `--name=value`, `--name value` (when it takes a value), `-x`, grouped short
 * options `-xyz` (a value-taking letter ends the group: the rest, or the next word, is its value),
 * `--` (everything after it is an operand). A word whose value is unknown until it runs (`$X`,
 * `$(cmd)`, a glob starting with a wildcard, brace expansion, a word `xargs` adds) where an option
 * could stand is risky too, since it could become one (`--config=evil.mjs`).
 */
import { isDynamic, isOptionWord, type Risk, type Word } from "./types.ts";

export interface OptionTable {
  /** The program, for reasons. */
  program: string;
  /** Long names (without `--`) and single letters that take a value. */
  values?: readonly string[];
  /** Options that make the program run other code or write elsewhere: name or letter → why. */
  risky?: Readonly<Record<string, string>>;
  /** For programs whose options are an open set: every option not named here is risky, for `why`. */
  onlyHarmless?: { names: readonly string[]; why: string };
  /** Long options may be abbreviated to a prefix (git's parse-options, getopt_long, nopt). */
  abbreviations?: boolean;
  /** `-name` is a long option too (tsc, find): no grouped short options. */
  singleDashLong?: boolean;
  /** How names compare, e.g. `_` as `-` (node) or any case (tsc). */
  normalize?: (name: string) => string;
  /** Values with which a risky option is harmless (eslint's built-in formatters). */
  safeValues?: Readonly<Record<string, readonly string[]>>;
  /** Reading stops at the first operand: what follows belongs to it (a subcommand, a script). */
  stopAtOperand?: boolean;
  /** Options whose value ends the options (python's `-c` and `-m`): reading stops after it. */
  stopAfter?: readonly string[];
  /** Words that end the options besides `--` (git's `--end-of-options`). */
  endOfOptions?: readonly string[];
}

export interface ScannedOption {
  /** The name as the table knows it (normalized, abbreviation resolved when unique). */
  name: string;
  word: Word;
  value?: Word;
}

export interface Scan {
  risks: Risk[];
  options: ScannedOption[];
  operands: Word[];
  /** With `stopAtOperand`: the index of the first operand, or `words.length`. */
  next: number;
  /** Whether `--` ended the options. */
  dashDash: boolean;
}

/** Reads `words` from `start` with `table`. */
export function scanOptions(words: readonly Word[], start: number, table: OptionTable): Scan {
  const scan: Scan = { risks: [], options: [], operands: [], next: words.length, dashDash: false };
  const normalize = table.normalize ?? ((name: string) => name);
  for (let i = start; i < words.length; i++) {
    const word = words[i]!;
    if (scan.dashDash) {
      scan.operands.push(word);
      continue;
    }
    if (!isDynamic(word) && (word.text === "--" || table.endOfOptions?.includes(word.text))) {
      scan.dashDash = true;
      if (table.stopAtOperand) {
        scan.next = i + 1;
        return scan;
      }
      continue;
    }
    if (isDynamic(word)) {
      scan.risks.push({ word, chars: word.text.length, why: dynamicWhy(word, table) });
    } else if (isOptionWord(word)) {
      i = readOption(words, i, table, normalize, scan);
      const last = scan.options.at(-1);
      if (last && table.stopAfter?.includes(last.name)) {
        scan.next = i + 1;
        return scan;
      }
      continue;
    }
    if (table.stopAtOperand) {
      scan.next = i;
      return scan;
    }
    scan.operands.push(word);
  }
  return scan;
}

/** Reads the option at `words[i]` into `scan`; returns the index of the last word it used. */
function readOption(
  words: readonly Word[],
  i: number,
  table: OptionTable,
  normalize: (name: string) => string,
  scan: Scan,
): number {
  const word = words[i]!;
  const long = word.text.startsWith("--") || (table.singleDashLong === true && word.text.length > 2);
  if (long) {
    const body = word.text.slice(word.text.startsWith("--") ? 2 : 1);
    const eq = body.indexOf("=");
    const written = eq < 0 ? body : body.slice(0, eq);
    const name = resolveName(normalize(written), table);
    const takesValue = table.values?.includes(name) ?? false;
    let value: Word | undefined;
    let last = i;
    if (eq >= 0) value = { ...word, text: body.slice(eq + 1) };
    else if (takesValue && i + 1 < words.length) {
      value = words[i + 1];
      last = i + 1;
    }
    const prefix = word.text.length - body.length;
    judgeName(table, name, prefix + written.length, word, value, scan);
    scan.options.push({ name, word, ...(value && { value }) });
    return last;
  }
  const letters = word.text.slice(1);
  for (let k = 0; k < letters.length; k++) {
    const letter = letters[k]!;
    const name = normalize(letter);
    const takesValue = table.values?.includes(name) ?? false;
    let value: Word | undefined;
    let last = i;
    if (takesValue) {
      if (k + 1 < letters.length) value = { ...word, text: letters.slice(k + 1) };
      else if (i + 1 < words.length) {
        value = words[i + 1];
        last = i + 1;
      }
    }
    judgeName(table, name, k + 2, word, value, scan);
    scan.options.push({ name, word, ...(value && { value }) });
    if (takesValue) return last;
  }
  return i;
}

/** An abbreviated long option, resolved when it is the prefix of exactly one name the table knows. */
function resolveName(name: string, table: OptionTable): string {
  if (!table.abbreviations) return name;
  const known = [
    ...Object.keys(table.risky ?? {}),
    ...(table.values ?? []),
    ...(table.onlyHarmless?.names ?? []),
  ];
  if (known.includes(name)) return name;
  const candidates = [
    ...new Set(known.filter((candidate) => candidate.length > 1 && candidate.startsWith(name))),
  ];
  return candidates.length === 1 ? candidates[0]! : name;
}

function judgeName(
  table: OptionTable,
  name: string,
  chars: number,
  word: Word,
  value: Word | undefined,
  scan: Scan,
): void {
  let why = table.risky?.[name];
  // An abbreviation that could stand for a risky option counts as it (git would refuse an
  // ambiguous one, but a later version may know fewer names).
  if (why === undefined && table.abbreviations && name.length > 1) {
    const risky = Object.keys(table.risky ?? {}).find((candidate) => candidate.startsWith(name));
    if (risky !== undefined) why = table.risky![risky];
  }
  if (why !== undefined) {
    const safe = table.safeValues?.[name];
    if (safe && value && !isDynamic(value) && safe.includes(value.text)) return;
    scan.risks.push({ word, chars, why });
    return;
  }
  if (table.onlyHarmless && !table.onlyHarmless.names.includes(name)) {
    scan.risks.push({ word, chars, why: table.onlyHarmless.why });
  }
}

/** Why a word only known at run time is risky where an option of `program` could stand. */
export function dynamicWhy(word: Word, table: OptionTable): string {
  const program = table.program;
  const end = [...(table.endOfOptions ?? []), "--"].map((marker) => `\`${marker}\``).join(" or ");
  if (word.hidden) {
    return `is read when it runs (from stdin or a file) and could be an option of ${program}; put ${end} before it`;
  }
  if (word.globAtStart || word.brace) {
    return `expands to file names when it runs, and a file named like an option (\`--config=x\`) would become one of ${program}; write \`./${word.text}\`, or put ${end} before it`;
  }
  return `is only known when it runs and could become an option of ${program}; put ${end} before it`;
}
