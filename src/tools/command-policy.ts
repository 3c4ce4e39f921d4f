/**
 * Allow/deny policy for bash commands, judged per simple command with a real shell parser.
 *
 * The command is parsed with mvdan/sh (the `mvdan-sh` build, whose tree exposes node types and
 * `syntax.Walk`; `sh-syntax`'s JSON drops the command nodes' contents, so it cannot serve here).
 * Every simple command anywhere in it is judged: lists (`;`, `&&`, `||`), pipes, subshells,
 * `$(...)`, backticks, process substitution, function bodies, and the code run by `eval`,
 * `bash|sh|... -c '...'`, wrappers (`env X=1 cmd`, `xargs cmd`, `timeout 5 cmd`, `nice`, `sudo`,
 * ...) and `find -exec`. Rules:
 * - a command matching a `deny` pattern is refused, whether written directly or through a wrapper;
 * - with an `allow` list, every simple command must match an allow pattern (for a wrapper, the
 *   command it runs must; `eval` and `sh -c` are judged by the code they run);
 * - with any policy set, what cannot be judged is refused: a parse error, a command name that is not
 *   a literal word (`$cmd`, `{a,b}`, globs), `eval`/`sh -c` of non-literal code, a shell reading
 *   commands from stdin, `env -S`.
 * Patterns are globs over the whole simple command text, words joined by single spaces with quotes
 * removed: `*` matches any run of characters (slashes and spaces included), `?` one character.
 * Deny patterns also match the command with its name reduced to a basename (`/usr/bin/curl x`).
 * A deny list alone is best effort (an interpreter such as `python -c` can run anything); an allow
 * list is the real guard.
 */
import { basename } from "node:path";

/** Allow and deny lists of command patterns. `allow` present (even empty) means "only these". */
export interface CommandPolicy {
  allow?: string[];
  deny?: string[];
}

export type CommandVerdict = { allowed: true } | { allowed: false; reason: string };

interface ShPos {
  Offset(): number;
}
interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
}
interface ShWordPart extends ShNode {
  Value?: string;
  Dollar?: boolean;
  Parts?: ShWordPart[];
}
interface ShWord extends ShNode {
  Parts: ShWordPart[];
}
interface ShCallExpr extends ShNode {
  Args: ShWord[];
}
interface ShSyntax {
  NewParser(): { Parse(source: string, name: string): unknown };
  Walk(node: unknown, visit: (node: unknown) => boolean): void;
  NodeType(node: unknown): string;
}

interface WordInfo {
  text: string;
  literal: boolean;
}

type Judgement =
  | { kind: "allowed" }
  | { kind: "denied"; reason: string }
  | { kind: "unjudgeable"; reason: string }
  | { kind: "not-allowed"; reason: string };

const MAX_DEPTH = 8;
const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "ash", "mksh"]);
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

interface WrapperSpec {
  /** Options that take the next word as their value. */
  argOptions: string[];
  /** Positional words before the command (timeout's duration). */
  positionals?: number;
  /** NAME=VALUE words before the command (env). */
  assignments?: boolean;
  /** Options that make the wrapper run code we cannot see (env -S). */
  refuse?: RegExp;
}

const WRAPPERS: Record<string, WrapperSpec> = {
  env: {
    argOptions: ["-u", "--unset", "-C", "--chdir"],
    assignments: true,
    refuse: /^(-[a-zA-Z0-9]*S|--split-string)/,
  },
  command: { argOptions: [] },
  builtin: { argOptions: [] },
  exec: { argOptions: ["-a"] },
  nice: { argOptions: ["-n", "--adjustment"] },
  nohup: { argOptions: [] },
  time: { argOptions: ["-f", "--format", "-o", "--output"] },
  timeout: { argOptions: ["-k", "--kill-after", "-s", "--signal"], positionals: 1 },
  stdbuf: { argOptions: ["-i", "-o", "-e"] },
  setsid: { argOptions: [] },
  unbuffer: { argOptions: [] },
  busybox: { argOptions: [] },
  ionice: { argOptions: ["-c", "-n", "-p", "-u"] },
  sudo: { argOptions: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"] },
  doas: { argOptions: ["-u", "-C"] },
  xargs: {
    argOptions: ["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args"],
  },
};

let syntaxPromise: Promise<ShSyntax> | undefined;

function loadSyntax(): Promise<ShSyntax> {
  // The parser is 1.5 MB of JavaScript: load it on first use only.
  syntaxPromise ??= import("mvdan-sh").then((module) => module.default.syntax as ShSyntax);
  return syntaxPromise;
}

/**
 * Judges `command` against the policy. Never throws; without allow or deny lists everything is
 * allowed (and the command is not parsed).
 */
export async function checkCommand(command: string, policy: CommandPolicy): Promise<CommandVerdict> {
  if (policy.allow === undefined && (policy.deny === undefined || policy.deny.length === 0)) {
    return { allowed: true };
  }
  const syntax = await loadSyntax();
  const judgement = judgeScript(syntax, command, policy, 0);
  if (judgement.kind === "allowed") return { allowed: true };
  return { allowed: false, reason: judgement.reason };
}

function judgeScript(syntax: ShSyntax, script: string, policy: CommandPolicy, depth: number): Judgement {
  if (depth > MAX_DEPTH) return { kind: "unjudgeable", reason: "commands are nested too deeply to judge" };
  let file: unknown;
  try {
    file = syntax.NewParser().Parse(script, "command");
  } catch (error) {
    return { kind: "unjudgeable", reason: `the command could not be parsed (${parseErrorText(error)})` };
  }
  const source = Buffer.from(script, "utf8");
  const commands: WordInfo[][] = [];
  syntax.Walk(file, (node) => {
    if (node !== null && syntax.NodeType(node) === "CallExpr") {
      const call = node as ShCallExpr;
      if (call.Args.length > 0) commands.push(call.Args.map((word) => wordInfo(syntax, word, source)));
    }
    return true;
  });
  let notAllowed: Judgement | undefined;
  for (const words of commands) {
    const judgement = judgeWords(syntax, words, policy, depth);
    if (judgement.kind === "denied" || judgement.kind === "unjudgeable") return judgement;
    if (judgement.kind === "not-allowed") notAllowed ??= judgement;
  }
  return notAllowed ?? { kind: "allowed" };
}

function judgeWords(syntax: ShSyntax, words: WordInfo[], policy: CommandPolicy, depth: number): Judgement {
  const name = words[0]!;
  const text = words.map((word) => word.text).join(" ");
  if (!name.literal || /[*?[{~]/.test(name.text)) {
    return { kind: "unjudgeable", reason: `\`${text}\`: the command name is not a literal word` };
  }
  const command = basename(name.text);
  const baseText = [command, ...words.slice(1).map((word) => word.text)].join(" ");
  const denied = policy.deny?.find((pattern) => globMatch(pattern, text) || globMatch(pattern, baseText));
  if (denied !== undefined)
    return { kind: "denied", reason: `\`${text}\` matches the deny pattern \`${denied}\`` };

  if (command === "eval") {
    const args = words.slice(1);
    if (args.some((word) => !word.literal)) {
      return { kind: "unjudgeable", reason: `\`${text}\`: eval of code that is not literal` };
    }
    return judgeScript(syntax, args.map((word) => word.text).join(" "), policy, depth + 1);
  }
  if (SHELLS.has(command)) {
    const shell = judgeShell(syntax, words, text, policy, depth);
    if (shell) return shell;
  }
  const spec = WRAPPERS[command];
  if (spec) {
    const inner = unwrap(words, spec);
    if (inner === "refuse")
      return { kind: "unjudgeable", reason: `\`${text}\` runs code that cannot be judged` };
    if (inner) return judgeWords(syntax, inner, policy, depth + 1);
  }
  if (command === "find") {
    for (const segment of findExecSegments(words)) {
      const judgement = judgeWords(syntax, segment, policy, depth + 1);
      if (judgement.kind !== "allowed") return judgement;
    }
  }
  if (policy.allow === undefined) return { kind: "allowed" };
  if (policy.allow.some((pattern) => globMatch(pattern, text))) return { kind: "allowed" };
  return { kind: "not-allowed", reason: `\`${text}\` is not in the allow list (${policy.allow.join(", ")})` };
}

/** `bash -c 'code'` is judged by its code; a shell reading stdin cannot be judged. Undefined: a script file. */
function judgeShell(
  syntax: ShSyntax,
  words: WordInfo[],
  text: string,
  policy: CommandPolicy,
  depth: number,
): Judgement | undefined {
  let hasC = false;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word.text === "-o" || word.text === "+o") {
      i++;
      continue;
    }
    if (/^[-+][a-zA-Z]*c[a-zA-Z]*$/.test(word.text) && word.text.startsWith("-")) {
      hasC = true;
      continue;
    }
    if (word.text.startsWith("-") || word.text.startsWith("+")) continue;
    if (!hasC) return undefined;
    if (!word.literal) return { kind: "unjudgeable", reason: `\`${text}\`: the -c code is not literal` };
    return judgeScript(syntax, word.text, policy, depth + 1);
  }
  return {
    kind: "unjudgeable",
    reason: `\`${text}\` reads commands that cannot be judged (stdin or no code)`,
  };
}

function unwrap(words: WordInfo[], spec: WrapperSpec): WordInfo[] | "refuse" | undefined {
  let positionals = spec.positionals ?? 0;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!.text;
    if (spec.refuse?.test(word)) return "refuse";
    if (word === "--") return words.length > i + 1 ? words.slice(i + 1) : undefined;
    if (spec.argOptions.includes(word)) {
      i++;
      continue;
    }
    if (word.startsWith("-") && word.length > 1) continue;
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
    if (positionals > 0) {
      positionals--;
      continue;
    }
    return words.slice(i);
  }
  return undefined;
}

function findExecSegments(words: WordInfo[]): WordInfo[][] {
  const segments: WordInfo[][] = [];
  for (let i = 1; i < words.length; i++) {
    if (!FIND_EXEC.has(words[i]!.text)) continue;
    const segment: WordInfo[] = [];
    for (i++; i < words.length && words[i]!.text !== ";" && words[i]!.text !== "+"; i++)
      segment.push(words[i]!);
    if (segment.length > 0) segments.push(segment);
  }
  return segments;
}

function wordInfo(syntax: ShSyntax, word: ShWord, source: Buffer): WordInfo {
  let text = "";
  for (const part of word.Parts) {
    const value = literalPart(syntax, part, false);
    if (value === undefined) {
      return {
        text: source.subarray(word.Pos().Offset(), word.End().Offset()).toString("utf8"),
        literal: false,
      };
    }
    text += value;
  }
  return { text, literal: true };
}

function literalPart(syntax: ShSyntax, part: ShWordPart, quoted: boolean): string | undefined {
  const type = syntax.NodeType(part);
  if (type === "Lit") return unescapeShell(part.Value ?? "", quoted);
  if (type === "SglQuoted") return part.Dollar ? undefined : (part.Value ?? "");
  if (type === "DblQuoted" && !part.Dollar) {
    let text = "";
    for (const inner of part.Parts ?? []) {
      const value = literalPart(syntax, inner, true);
      if (value === undefined) return undefined;
      text += value;
    }
    return text;
  }
  return undefined;
}

function unescapeShell(raw: string, quoted: boolean): string {
  if (quoted) return raw.replace(/\\([$`"\\])/g, "$1").replace(/\\\n/g, "");
  return raw.replace(/\\\n/g, "").replace(/\\(.)/g, "$1");
}

const globCache = new Map<string, RegExp>();

/** Whole-text glob match: `*` any run of characters, `?` one character; whitespace runs are one space. */
export function globMatch(pattern: string, text: string): boolean {
  let regex = globCache.get(pattern);
  if (!regex) {
    const normalized = pattern.trim().replace(/\s+/g, " ");
    let body = "";
    for (const char of normalized) {
      if (char === "*") body += "[\\s\\S]*";
      else if (char === "?") body += "[\\s\\S]";
      else body += char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    }
    regex = new RegExp(`^${body}$`);
    globCache.set(pattern, regex);
  }
  return regex.test(text.trim().replace(/\s+/g, " "));
}

function parseErrorText(error: unknown): string {
  const withError = error as { Error?: () => string } | null;
  if (withError && typeof withError.Error === "function") return withError.Error();
  return error instanceof Error ? error.message : String(error);
}
