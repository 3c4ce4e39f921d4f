import { readFile } from "node:fs/promises";
import path from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { SpecError, type SpecProblem } from "./errors.ts";
import { normalizeSpec } from "./normalize.ts";
import { positionOf, type SourceMap } from "./positions.ts";
import { taskSchema } from "./schema.ts";
import { closest } from "./suggest.ts";
import type { LoadedTask, LoadTaskOptions } from "./types.ts";
import { problemsFromIssues } from "./zod-issues.ts";

/**
 * Reads, parses, validates and templates a task file. Throws `SpecError` carrying every problem
 * (code `spec_not_found` when the file does not exist, `spec_unreadable` when it cannot be read,
 * `spec_invalid` otherwise). Problems name the file as given, so messages read like the command.
 */
export async function loadTask(file: string, options: LoadTaskOptions = {}): Promise<LoadedTask> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const notFound = (error as NodeJS.ErrnoException).code === "ENOENT";
    const message = notFound
      ? "task file not found"
      : `cannot read the task file: ${(error as Error).message}`;
    throw new SpecError(
      notFound ? "spec_not_found" : "spec_unreadable",
      [{ file, line: 0, column: 0, path: "", message }],
      {
        cause: error,
      },
    );
  }
  return parseTask(text, file, options);
}

/** Same as `loadTask`, from text already read; `file` names it in problems and sets `dir`. */
export function parseTask(text: string, file: string, options: LoadTaskOptions = {}): LoadedTask {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const map: SourceMap = { file, source: text, doc, lineCounter };

  if (doc.errors.length > 0) {
    // One syntax mistake often makes the parser complain several times on the same line.
    const lines = new Set<number>();
    const problems: SpecProblem[] = [];
    for (const error of doc.errors) {
      const position = positionOf(map, error.pos[0]);
      if (lines.has(position.line)) continue;
      lines.add(position.line);
      problems.push({
        file,
        ...position,
        path: "",
        message: `YAML syntax error: ${yamlMessage(error.message)}`,
      });
    }
    throw new SpecError("spec_invalid", problems);
  }

  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (value === null || value === undefined) {
    throw new SpecError("spec_invalid", [
      {
        file,
        line: 1,
        column: 1,
        path: "",
        message: "the task file is empty",
        expected: "a mapping with at least model and prompt",
      },
    ]);
  }
  const defaultName = path.basename(file).replace(/\.(ya?ml)$/i, "");
  const parsed = taskSchema.safeParse(value);
  if (!parsed.success) {
    const problems = problemsFromIssues(parsed.error.issues, value, taskSchema, map);
    problems.push(...problemsInValidSections(value, parsed.error.issues, map, defaultName, options));
    throw new SpecError("spec_invalid", dedupe(problems));
  }

  const { spec, problems } = normalizeSpec(parsed.data, map, defaultName, options);
  if (!spec || problems.length > 0) throw new SpecError("spec_invalid", dedupe(problems));
  return { file: path.resolve(file), dir: path.dirname(path.resolve(file)), name: spec.name, spec };
}

/**
 * A task built from flags alone (`agent-run --prompt … --model …` without a file): the defaults
 * of an empty spec, with `cwd` as its directory. Throws `SpecError` when prompt or model is missing.
 */
export function parseInlineTask(options: LoadTaskOptions & { cwd: string }): LoadedTask {
  const problems: SpecProblem[] = [];
  if (options.promptOverride === undefined) {
    problems.push({
      file: "--prompt",
      line: 0,
      column: 0,
      path: "",
      message: "a task file or --prompt is required",
    });
  }
  if (options.modelOverride === undefined) {
    problems.push({
      file: "--model",
      line: 0,
      column: 0,
      path: "",
      message: "a task file or --model is required",
    });
  }
  if (problems.length > 0) throw new SpecError("spec_invalid", problems);
  const file = path.join(options.cwd, "inline-task.yml");
  const task = parseTask("{}\n", file, options);
  return { ...task, file: "", dir: path.resolve(options.cwd) };
}

/**
 * The checks after the schema (templates, variables, globs, providers) for the top-level sections
 * the schema accepted, so one pass reports a bad duration and an undefined variable together.
 * Sections with schema problems are left out rather than guessed at.
 */
function problemsInValidSections(
  value: unknown,
  issues: readonly { path: PropertyKey[]; code: string; keys?: string[] }[],
  map: SourceMap,
  defaultName: string,
  options: LoadTaskOptions,
): SpecProblem[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  const broken = new Set<string>();
  for (const issue of issues) {
    if (issue.path.length > 0) broken.add(String(issue.path[0]));
    else if (issue.code === "unrecognized_keys") for (const key of issue.keys ?? []) broken.add(key);
    else return [];
  }
  const pruned = Object.fromEntries(Object.entries(value).filter(([key]) => !broken.has(key)));
  const retry = taskSchema.safeParse(pruned);
  if (!retry.success) return [];
  const { problems } = normalizeSpec(retry.data, map, defaultName, options);
  return problems.filter((problem) => {
    const section = problem.path.split(/[.[]/, 1)[0] ?? "";
    const missing = /^missing required field '(.+)'$/.exec(problem.message)?.[1];
    const undefinedVar = broken.has("vars") && problem.message.startsWith("undefined variable");
    // `promt:` is one problem, not also a missing `prompt`.
    const misspelt =
      missing !== undefined && (broken.has(missing) || closest(missing, [...broken]) !== undefined);
    return !broken.has(section) && !misspelt && !undefinedVar;
  });
}

function yamlMessage(message: string): string {
  return message.replace(/ at line \d+, column \d+[\s\S]*$/, "").trim();
}

function dedupe(problems: SpecProblem[]): SpecProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.file}:${p.line}:${p.column}:${p.path}:${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
