import { closest } from "./suggest.ts";

/**
 * `{{ ns.NAME }}` templates. Namespaces: `vars` and `env` (filled when the task is loaded) and,
 * in hook commands only, `tool` (filled per call: name, path, command). There is no escape: `{{`
 * always starts a template, and an unknown or undefined reference is an error, never "".
 *
 * In hook commands every substituted value is one shell word (quoted) that no program reads as an
 * option: a value starting with `-` gets `./` in front (`--config=evil.mjs` → `./--config=evil.mjs`,
 * the same file for a path). Quoting stops new words, not options: a file the model names
 * `--config=evil.mjs` would otherwise make `eslint --fix {{ tool.path }}` load it.
 */

export type TemplateNamespace = "vars" | "env" | "tool";
export const TOOL_FIELDS = ["name", "path", "command"] as const;

export interface TemplateRef {
  ns: TemplateNamespace;
  name: string;
  /** The reference as written, braces included, to locate it in the source. */
  raw: string;
  /** Offset of `raw` in the template string. */
  index: number;
}

export type TemplatePart = string | TemplateRef;

export interface TemplateIssue {
  index: number;
  raw: string;
  message: string;
  expected?: string;
  suggestion?: string;
}

const NAMESPACES: readonly TemplateNamespace[] = ["vars", "env", "tool"];

/** Splits a string into literal text and references; `allowed` limits the namespaces. */
export function parseTemplate(
  text: string,
  allowed: readonly TemplateNamespace[],
): { parts: TemplatePart[]; issues: TemplateIssue[] } {
  const parts: TemplatePart[] = [];
  const issues: TemplateIssue[] = [];
  let last = 0;
  for (const match of text.matchAll(/\{\{([^{}]*)\}\}/g)) {
    const index = match.index;
    const raw = match[0];
    if (index > last) parts.push(...literal(text.slice(last, index), last, issues));
    last = index + raw.length;
    const expression = match[1]!.trim();
    const ref = /^([A-Za-z_]+)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expression);
    if (!ref) {
      issues.push({
        index,
        raw,
        message: `bad template '${raw}'`,
        expected: "{{ vars.NAME }} or {{ env.NAME }}",
      });
      continue;
    }
    const ns = ref[1]!;
    const name = ref[2]!;
    if (!allowed.includes(ns as TemplateNamespace)) {
      const known = NAMESPACES.includes(ns as TemplateNamespace);
      const suggestion = known ? undefined : closest(ns, allowed);
      issues.push({
        index,
        raw,
        message: known
          ? `'${ns}.' templates are only available in hook commands`
          : `unknown template namespace '${ns}'`,
        expected: allowed.map((n) => `${n}.NAME`).join(" or "),
        ...(suggestion && { suggestion: `'${suggestion}.${name}'` }),
      });
      continue;
    }
    if (ns === "tool" && !(TOOL_FIELDS as readonly string[]).includes(name)) {
      const suggestion = closest(name, TOOL_FIELDS);
      issues.push({
        index,
        raw,
        message: `unknown tool field '${name}'`,
        expected: TOOL_FIELDS.map((f) => `tool.${f}`).join(", "),
        ...(suggestion && { suggestion: `'tool.${suggestion}'` }),
      });
      continue;
    }
    parts.push({ ns: ns as TemplateNamespace, name, raw, index });
  }
  if (last < text.length) parts.push(...literal(text.slice(last), last, issues));
  return { parts, issues };
}

function literal(text: string, offset: number, issues: TemplateIssue[]): string[] {
  const open = text.indexOf("{{");
  if (open >= 0) {
    issues.push({
      index: offset + open,
      raw: "{{",
      message: "unclosed template '{{'",
      expected: "{{ vars.NAME }} with its closing '}}'",
    });
  }
  return [text];
}

/**
 * Joins parts, asking `resolve` for each reference. With `quote` (hook commands) every substituted
 * value becomes one shell word that cannot be read as an option (see `commandWord`).
 */
export function renderTemplate(
  parts: readonly TemplatePart[],
  resolve: (ref: TemplateRef) => string,
  options: { quote?: boolean } = {},
): string {
  return parts
    .map((part) => {
      if (typeof part === "string") return part;
      const value = resolve(part);
      return options.quote ? commandWord(value) : value;
    })
    .join("");
}

/**
 * A value as one shell word of a command that no program reads as an option: shell-quoted, with
 * `./` in front when it starts with `-` (for a relative path, the same file).
 */
export function commandWord(value: string): string {
  return shellQuote(value.startsWith("-") ? `./${value}` : value);
}

/**
 * The references of a hook command that stand where the shell would not read their quoted value
 * as one plain word: inside `'…'`, `"…"`, `$'…'` or backticks, or after a heredoc starts (`<<`, whose
 * body expands `$(…)` whatever the quotes). There the runner's quotes are literal characters and
 * a value such as `$(cmd)` (a file name the model chose, a PR title in `env`) runs as code:
 * `"{{ tool.path }}"` renders as `"'$(cmd)'"`. Such a template is refused when the task loads.
 */
export function quotedReferences(parts: readonly TemplatePart[]): TemplateRef[] {
  const found: TemplateRef[] = [];
  // Open quotes, innermost last (a backtick can open inside double quotes and close back to them).
  const open: ("'" | '"' | "`")[] = [];
  let heredoc = false;
  for (const part of parts) {
    if (typeof part !== "string") {
      if (open.length > 0 || heredoc) found.push(part);
      continue;
    }
    for (let i = 0; i < part.length && !heredoc; i++) {
      const c = part[i]!;
      const inner = open.at(-1);
      if (inner === "'") {
        if (c === "'") open.pop();
      } else if (c === "\\") i++;
      else if (c === inner) open.pop();
      else if (c === "`") open.push(c);
      else if (inner === undefined && (c === "'" || c === '"')) open.push(c);
      else if (inner === undefined && c === "<" && part[i + 1] === "<" && part[i + 2] !== "<") heredoc = true;
    }
  }
  return found;
}

/** POSIX shell quoting: safe words stay bare, everything else goes in single quotes. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
