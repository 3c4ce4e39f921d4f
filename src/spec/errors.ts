import { AgentRunError } from "../core/errors.ts";
import { showJsonString } from "./show-text.ts";

/**
 * One problem in a task file. `line` and `column` are 1-based; both are 0 when the problem is not
 * in the file (a command-line override such as `--var`), and `file` then names the flag.
 */
export interface SpecProblem {
  file: string;
  line: number;
  column: number;
  /** The field, `tools[0]`, `hooks.before_tool_call[1].run`; "" for the document itself. */
  path: string;
  message: string;
  expected?: string;
  suggestion?: string;
}

export type SpecErrorCode = "spec_invalid" | "spec_not_found" | "spec_unreadable";

/**
 * A task file that cannot be run. Carries every problem found, not just the first. `shortMessage`
 * is one line; `message` lists every problem, positioned (`task.yml:3:5 tools[0]: …`).
 */
export class SpecError extends AgentRunError {
  declare readonly code: SpecErrorCode;
  readonly problems: SpecProblem[];

  /** `problems` are kept sorted by file, line and column. */
  constructor(code: SpecErrorCode, problems: SpecProblem[], options?: { cause?: unknown }) {
    problems = sortProblems(problems);
    const first = problems[0];
    const shortMessage =
      problems.length === 1 && first
        ? formatSpecProblems([first])
        : `${first?.file ?? "task"}: ${problems.length} problems in the task spec`;
    super("usage", code, formatSpecProblems(problems), {
      shortMessage,
      ...(first &&
        first.line > 0 && { location: { file: first.file, line: first.line, column: first.column } }),
      ...(options?.cause !== undefined && { cause: options.cause }),
    });
    this.name = "SpecError";
    this.problems = problems;
  }
}

/** A problem's text is cut at this many characters. */
const MAX_LINE_CHARS = 500;

/** Problems shown at most by `formatSpecProblems`; a last line counts the rest. */
export const MAX_SHOWN_PROBLEMS = 100;

/**
 * Renders problems one per line, `file:line:col path: message (expected …) — did you mean …?`,
 * sorted by position, at most `limit` of them (default `MAX_SHOWN_PROBLEMS`) and then one line
 * saying how many more there are. With `color`, positions are dimmed and the message is red (ANSI).
 */
export function formatSpecProblems(
  problems: SpecProblem[],
  options: { color?: boolean; limit?: number } = {},
): string {
  const sorted = sortProblems(problems);
  const limit = options.limit ?? MAX_SHOWN_PROBLEMS;
  const paint = (code: string, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const lines = sorted.slice(0, limit).map((problem) => {
    const where = problem.line > 0 ? `${problem.file}:${problem.line}:${problem.column}` : `${problem.file}:`;
    const field = problem.path ? ` ${problem.path}:` : "";
    let text = problem.message;
    if (problem.expected) text += ` (expected ${problem.expected})`;
    if (problem.suggestion) text += ` — did you mean ${problem.suggestion}?`;
    // A safety net for text quoted from the file that no message cut: one problem, one line.
    text = text.replaceAll(/[\r\n]+/g, " ");
    if (text.length > MAX_LINE_CHARS) text = `${text.slice(0, MAX_LINE_CHARS)}…`;
    return `${paint("2", where)}${field} ${paint("31", text)}`;
  });
  const rest = sorted.length - lines.length;
  if (rest > 0) {
    const first = sorted[0]!;
    lines.push(
      `${first.file}: ${rest.toLocaleString("en-US")} more problem${rest === 1 ? "" : "s"} not shown`,
    );
  }
  return lines.join("\n");
}

/** Renders a path of keys and indices the way users write it: `hooks.before_stop[0].run`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S}]{1,60}$/u.test(String(key)))
      out += `[${showJsonString(String(key))}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** A sorted copy: by file, then line, then column. */
export function sortProblems(problems: readonly SpecProblem[]): SpecProblem[] {
  // Not localeCompare: it costs a microsecond a call, seconds for 100,000 problems.
  const byFile = (a: string, b: string) => (a === b ? 0 : a < b ? -1 : 1);
  return [...problems].sort((a, b) => byFile(a.file, b.file) || a.line - b.line || a.column - b.column);
}
