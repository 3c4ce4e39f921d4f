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
 *   commands from stdin, `env -S`;
 * - with any policy set, shell syntax that evaluates values as arithmetic is refused, since bash runs
 *   a `$(cmd)` hidden in a value there (`x='a[$(cmd)]'; (( x ))`): `(( ))`, `$(( ))`, `$[ ]`,
 *   `for (( ))`, `let`, declaration builtins (`declare`, `typeset`, `local`, `export`, `readonly`),
 *   `[[ ]]` with expansions in it, non-numeric array subscripts and substring offsets, `${!x}`.
 * Leading `NAME=value` assignments (also `env NAME=value cmd`) are part of the judged text, so an
 * allow pattern must cover them (`CI=1 npm test`); deny patterns match with and without them.
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
interface ShAssign extends ShNode {
  Name?: { Value: string } | null;
  Append?: boolean;
  Index?: ShNode | null;
  Value?: ShWord | null;
}
interface ShCallExpr extends ShNode {
  Assigns: ShAssign[];
  Args: ShWord[];
}
interface ShParamExp extends ShNode {
  Excl?: boolean;
  Names?: number;
  Index?: ShNode | null;
  Slice?: { Offset?: ShNode | null; Length?: ShNode | null } | null;
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

/** A simple command: its leading `NAME=value` assignments and its words. */
interface SimpleCommand {
  assigns: WordInfo[];
  words: WordInfo[];
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
  const commands: SimpleCommand[] = [];
  let refused: Judgement | undefined;
  syntax.Walk(file, (node) => {
    if (node === null) return true;
    if (syntax.NodeType(node) === "CallExpr") {
      const call = node as ShCallExpr;
      const assigns = call.Assigns.map((assign) => assignInfo(syntax, assign, source));
      const words = call.Args.map((word) => wordInfo(syntax, word, source));
      if (assigns.length > 0 || words.length > 0) commands.push({ assigns, words });
    }
    refused ??= refusedSyntax(syntax, node, source);
    return true;
  });
  let notAllowed: Judgement | undefined;
  for (const { assigns, words } of commands) {
    const judgement = judgeWords(syntax, words, policy, depth, assigns);
    if (judgement.kind === "denied" || judgement.kind === "unjudgeable") return judgement;
    if (judgement.kind === "not-allowed") notAllowed ??= judgement;
  }
  return refused ?? notAllowed ?? { kind: "allowed" };
}

const ARITHMETIC_RISK = "bash evaluates values there as arithmetic, which runs a `$(cmd)` hidden in them";

/** Shell syntax refused under any policy (see the header), as an unjudgeable reason. */
function refusedSyntax(syntax: ShSyntax, node: unknown, source: Buffer): Judgement | undefined {
  const type = syntax.NodeType(node);
  const text = (n: ShNode) => source.subarray(n.Pos().Offset(), n.End().Offset()).toString("utf8");
  const refuse = (n: ShNode, what: string): Judgement => {
    const shown = text(n);
    const snippet = shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
    return {
      kind: "unjudgeable",
      reason: `\`${snippet}\`: ${what} is refused under a command policy (${ARITHMETIC_RISK})`,
    };
  };
  const shell = node as ShNode;
  switch (type) {
    case "ArithmCmd":
    case "ArithmExp":
    case "CStyleLoop":
      return refuse(shell, "arithmetic");
    case "LetClause":
      return refuse(shell, "`let`");
    case "DeclClause":
      return refuse(shell, "a declaration builtin (declare, typeset, local, export, readonly)");
    case "TestClause":
      return containsExpansion(syntax, node) ? refuse(shell, "`[[ ]]` with an expansion in it") : undefined;
    case "Assign": {
      const index = (node as ShAssign).Index;
      return index && !/^\s*\d+\s*$/.test(text(index))
        ? refuse(shell, "an array subscript that is not a number")
        : undefined;
    }
    case "ParamExp": {
      const param = node as ShParamExp;
      const index = param.Index ? text(param.Index).trim() : undefined;
      if (index !== undefined && !/^(\d+|@|\*)$/.test(index))
        return refuse(shell, "an array subscript that is not a number");
      if (param.Excl && !param.Names && index === undefined)
        return refuse(shell, "indirect expansion (`!` before a name)");
      const numeric = (n: ShNode | null | undefined) => !n || /^\s*\(?\s*-?\d+\s*\)?\s*$/.test(text(n));
      if (param.Slice && !(numeric(param.Slice.Offset) && numeric(param.Slice.Length)))
        return refuse(shell, "a substring offset that is not a number");
      return undefined;
    }
    default:
      return undefined;
  }
}

function containsExpansion(syntax: ShSyntax, node: unknown): boolean {
  let found = false;
  syntax.Walk(node, (inner) => {
    if (inner === null || found) return false;
    const type = syntax.NodeType(inner);
    if (type === "ParamExp" || type === "CmdSubst" || type === "ArithmExp" || type === "ProcSubst")
      found = true;
    return !found;
  });
  return found;
}

function judgeWords(
  syntax: ShSyntax,
  words: WordInfo[],
  policy: CommandPolicy,
  depth: number,
  assigns: WordInfo[] = [],
): Judgement {
  const text = [...assigns, ...words].map((word) => word.text).join(" ");
  const name = words[0];
  if (name === undefined) {
    // Assignments alone (`x=1`): with an allow list they must be allowed like a command.
    const denied = policy.deny?.find((pattern) => globMatch(pattern, text));
    if (denied !== undefined)
      return { kind: "denied", reason: `\`${text}\` matches the deny pattern \`${denied}\`` };
    return allowListJudgement(policy, text);
  }
  if (!name.literal || /[*?[{~]/.test(name.text)) {
    return { kind: "unjudgeable", reason: `\`${text}\`: the command name is not a literal word` };
  }
  const command = basename(name.text);
  const bareText = words.map((word) => word.text).join(" ");
  const baseText = [command, ...words.slice(1).map((word) => word.text)].join(" ");
  for (const pattern of policy.deny ?? []) {
    const shown =
      globMatch(pattern, bareText) || globMatch(pattern, baseText)
        ? bareText
        : globMatch(pattern, text)
          ? text
          : undefined;
    if (shown !== undefined)
      return { kind: "denied", reason: `\`${shown}\` matches the deny pattern \`${pattern}\`` };
  }

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
    if (inner) return judgeWords(syntax, inner.words, policy, depth + 1, [...assigns, ...inner.assigns]);
  }
  if (command === "find") {
    for (const segment of findExecSegments(words)) {
      const judgement = judgeWords(syntax, segment, policy, depth + 1);
      if (judgement.kind !== "allowed") return judgement;
    }
  }
  return allowListJudgement(policy, text);
}

function allowListJudgement(policy: CommandPolicy, text: string): Judgement {
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

/** The command a wrapper runs, with the `NAME=value` words it sets for it (env). */
function unwrap(words: WordInfo[], spec: WrapperSpec): SimpleCommand | "refuse" | undefined {
  let positionals = spec.positionals ?? 0;
  const assigns: WordInfo[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!.text;
    if (spec.refuse?.test(word)) return "refuse";
    if (word === "--") return words.length > i + 1 ? { assigns, words: words.slice(i + 1) } : undefined;
    if (spec.argOptions.includes(word)) {
      i++;
      continue;
    }
    if (word.startsWith("-") && word.length > 1) continue;
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      assigns.push(words[i]!);
      continue;
    }
    if (positionals > 0) {
      positionals--;
      continue;
    }
    return { assigns, words: words.slice(i) };
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

/** `NAME=value` (or `NAME+=value`) with the value's quotes removed when it is literal. */
function assignInfo(syntax: ShSyntax, assign: ShAssign, source: Buffer): WordInfo {
  const raw = source.subarray(assign.Pos().Offset(), assign.End().Offset()).toString("utf8");
  const name = assign.Name?.Value;
  if (name === undefined || assign.Index) return { text: raw, literal: false };
  const operator = assign.Append ? "+=" : "=";
  if (!assign.Value) return { text: `${name}${operator}`, literal: raw === `${name}${operator}` };
  const value = wordInfo(syntax, assign.Value, source);
  return { text: value.literal ? `${name}${operator}${value.text}` : raw, literal: value.literal };
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
