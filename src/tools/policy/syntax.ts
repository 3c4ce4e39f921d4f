/**
 * Shell syntax for the command policy: mvdan/sh's parser (the `mvdan-sh` build, whose tree exposes
 * node types and `syntax.Walk`; `sh-syntax`'s JSON drops the command nodes' contents, so it cannot
 * serve) turned into what the judge reads: every simple command anywhere in a script (lists, pipes,
 * subshells, `$(…)`, backticks, process substitution, function bodies), every redirection, and the
 * first construct refused outright (see arithmetic.ts).
 */

import { errorText } from "../../core/errors.ts";
import { refusedSyntax, type ShNode, type ShSyntax } from "./arithmetic.ts";
import type { Call, Word } from "./types.ts";

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
interface ShRedirect extends ShNode {
  Op: number;
  Word?: ShWord | null;
}
interface ShStmt extends ShNode {
  Redirs: ShRedirect[];
}

/** What a redirection does with its word. */
export type RedirectKind = "write" | "read" | "duplicate" | "heredoc";

export interface Redirect {
  kind: RedirectKind;
  /** The operator as written (`>`, `&>>`, `>&`). */
  op: string;
  target: Word;
}

export interface ParsedScript {
  calls: Call[];
  redirects: Redirect[];
  /** The first construct refused under any policy, as a reason. */
  refused?: string;
}

/** The operators in the order of OPERATOR_PROBE; the parser's numbers for them are read at load. */
const OPERATORS: [string, RedirectKind][] = [
  [">", "write"],
  [">>", "write"],
  ["<", "read"],
  ["<>", "write"],
  ["<&", "duplicate"],
  [">&", "duplicate"],
  [">|", "write"],
  ["<<", "heredoc"],
  ["<<-", "heredoc"],
  ["<<<", "heredoc"],
  ["&>", "write"],
  ["&>>", "write"],
];
const OPERATOR_PROBE = "x >a >>a <a <>a <&0 >&1 >|a <<E <<-E <<<a &>a &>>a\nE\nE\n";

interface Loaded {
  syntax: ShSyntax;
  operators: Map<number, [string, RedirectKind]>;
}

let loading: Promise<Loaded> | undefined;

/** Loads the parser (1.5 MB of JavaScript) on first use only. */
export function loadSyntax(): Promise<Loaded> {
  loading ??= import("mvdan-sh").then((module) => {
    const syntax = module.default.syntax as ShSyntax;
    // Operator numbers are the parser's token values; reading them from a probe keeps them right
    // whatever version of the parser is installed.
    const operators = new Map<number, [string, RedirectKind]>();
    const probe = parseStatements(syntax, OPERATOR_PROBE);
    probe[0]?.Redirs.forEach((redirect, index) => {
      const operator = OPERATORS[index];
      if (operator) operators.set(redirect.Op, operator);
    });
    if (operators.size !== OPERATORS.length) throw new Error("mvdan-sh: unexpected redirection operators");
    return { syntax, operators };
  });
  return loading;
}

function parseStatements(syntax: ShSyntax, code: string): ShStmt[] {
  const statements: ShStmt[] = [];
  syntax.Walk(syntax.NewParser().Parse(code, "command"), (node) => {
    if (node !== null && syntax.NodeType(node) === "Stmt") statements.push(node as ShStmt);
    return true;
  });
  return statements;
}

/** Parses `code`; throws the parser's error text when it does not parse. */
export function parseScript(loaded: Loaded, code: string): ParsedScript {
  const { syntax, operators } = loaded;
  let file: unknown;
  try {
    file = syntax.NewParser().Parse(code, "command");
  } catch (error) {
    throw new Error(parseErrorText(error));
  }
  const source = Buffer.from(code, "utf8");
  const result: ParsedScript = { calls: [], redirects: [] };
  syntax.Walk(file, (node) => {
    if (node === null) return true;
    const type = syntax.NodeType(node);
    if (type === "CallExpr") {
      const call = node as ShCallExpr;
      const assigns = call.Assigns.map((assign) => assignWord(syntax, assign, source));
      const words = call.Args.map((word) => toWord(syntax, word, source));
      if (assigns.length > 0 || words.length > 0) result.calls.push({ assigns, words });
    } else if (type === "Stmt") {
      for (const redirect of (node as ShStmt).Redirs) {
        const [op, kind] = operators.get(redirect.Op) ?? ["?", "write"];
        const target = redirect.Word ? toWord(syntax, redirect.Word, source) : undefined;
        if (target) result.redirects.push({ kind, op, target });
      }
    }
    result.refused ??= refusedSyntax(syntax, node, source);
    return true;
  });
  return result;
}

/** `NAME=value` (or `NAME+=value`) with the value's quotes removed when it is literal. */
function assignWord(syntax: ShSyntax, assign: ShAssign, source: Buffer): Word {
  const raw = source.subarray(assign.Pos().Offset(), assign.End().Offset()).toString("utf8");
  const plain = { glob: false, globAtStart: false, brace: false, tilde: false };
  const name = assign.Name?.Value;
  if (name === undefined || assign.Index) return { text: raw, literal: false, ...plain };
  const operator = assign.Append ? "+=" : "=";
  if (!assign.Value) return { text: `${name}${operator}`, literal: raw === `${name}${operator}`, ...plain };
  const value = toWord(syntax, assign.Value, source);
  return {
    ...value,
    text: value.literal ? `${name}${operator}${value.text}` : raw,
    globAtStart: false,
    tilde: false,
  };
}

/** A word's text and what expansions may change it. */
function toWord(syntax: ShSyntax, word: ShWord, source: Buffer): Word {
  const state = { text: "", literal: true, glob: false, globAtStart: false, brace: false, tilde: false };
  let unquoted = "";
  word.Parts.forEach((part, index) => {
    const type = syntax.NodeType(part);
    if (type === "Lit") {
      const scan = scanUnquoted(part.Value ?? "");
      if (index === 0) {
        state.globAtStart = scan.globAtStart;
        state.tilde = (part.Value ?? "").startsWith("~");
      }
      state.glob ||= scan.glob;
      unquoted += scan.marked;
    } else if (type === "ExtGlob") {
      state.glob = true;
      if (index === 0) state.globAtStart = true;
    } else {
      // Quoted text cannot open a brace expansion; keep its length so `..` and `,` still count.
      unquoted += " ";
    }
    const value = state.literal ? literalPart(syntax, part, false) : undefined;
    if (value === undefined) state.literal = false;
    else state.text += value;
  });
  state.brace = /\{[^}]*(,|\.\.)[^{]*\}/.test(unquoted);
  if (!state.literal) state.text = source.subarray(word.Pos().Offset(), word.End().Offset()).toString("utf8");
  return state;
}

/** Unescaped glob and brace characters of an unquoted literal; escaped ones become spaces. */
function scanUnquoted(raw: string): { glob: boolean; globAtStart: boolean; marked: string } {
  let marked = "";
  let glob = false;
  let globAtStart = false;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (char === "\\") {
      marked += "  ";
      i++;
      continue;
    }
    if (char === "*" || char === "?" || char === "[") {
      glob = true;
      if (i === 0) globAtStart = true;
    }
    marked += char;
  }
  return { glob, globAtStart, marked };
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

function parseErrorText(error: unknown): string {
  const withError = error as { Error?: () => string } | null;
  if (withError && typeof withError.Error === "function") return withError.Error();
  return errorText(error);
}
