import path from "node:path";
import { readInputFile } from "../system/read-input-file.ts";
import { parseYaml } from "../system/yaml-input.ts";
import { formatPath, SpecError, type SpecProblem } from "./errors.ts";
import { type NormalizeOptions, normalizeSpec } from "./normalize.ts";
import { type ResolvedOutputSchema, resolveOutputSchema } from "./output-schema.ts";
import { positionAt, positionOf, type SourceMap } from "./positions.ts";
import { taskSchema } from "./schema.ts";
import { MAX_SPEC_BYTES } from "./spec-file.ts";
import { closest } from "./suggest.ts";
import type { LoadedTask, LoadTaskOptions } from "./types.ts";
import { problemsFromIssues } from "./zod-issues.ts";

export { MAX_SPEC_BYTES };

/**
 * Reads, parses, validates and templates a task file. Throws `SpecError` carrying every problem
 * (code `spec_not_found` when the file does not exist, `spec_unreadable` when it is not a regular
 * UTF-8 text file of at most `MAX_SPEC_BYTES` or cannot be read, `spec_invalid` otherwise). Problems name the file as given, so messages read like the command.
 */
export async function loadTask(file: string, options: LoadTaskOptions = {}): Promise<LoadedTask> {
  return (await loadTaskWithSource(file, options)).task;
}

/** `loadTask`, also returning the parsed file (for `checkTask`, so it is not parsed twice). */
export async function loadTaskWithSource(
  file: string,
  options: LoadTaskOptions = {},
): Promise<{ task: LoadedTask; source: SourceMap }> {
  const read = await readInputFile(file, { maxBytes: MAX_SPEC_BYTES });
  if (!read.ok) {
    const message = read.problem === "not_found" ? "task file not found" : `the task file ${read.message}`;
    const code =
      read.problem === "not_found"
        ? "spec_not_found"
        : read.problem === "not_text"
          ? "spec_invalid"
          : "spec_unreadable";
    throw new SpecError(code, [{ file, line: read.line ?? 0, column: read.column ?? 0, path: "", message }], {
      cause: read.cause,
    });
  }
  const { map, value, problems } = parseSpecSource(read.text, file);
  const outputSchema =
    problems.length > 0 ? undefined : await resolveOutputSchema(value, map, path.dirname(path.resolve(file)));
  return { task: taskFrom(map, value, problems, options, outputSchema), source: map };
}

/**
 * Same as `loadTask`, from text already read; `file` names it in problems and sets `dir`. An inline
 * `output_schema` is taken as written (the run checks it when it compiles it); a schema file is
 * read by `loadTask` only.
 */
export function parseTask(text: string, file: string, options: LoadTaskOptions = {}): LoadedTask {
  const { map, value, problems } = parseSpecSource(text, file);
  return taskFrom(map, value, problems, options);
}

function taskFrom(
  map: SourceMap,
  value: unknown,
  yamlProblems: SpecProblem[],
  options: LoadTaskOptions,
  outputSchema?: ResolvedOutputSchema,
): LoadedTask {
  const file = map.file;
  if (yamlProblems.length > 0) throw new SpecError("spec_invalid", yamlProblems);

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
  // zod builds records with plain assignment, which drops this key without a word.
  const protoKeys = protoKeyPaths(value);
  if (protoKeys.length > 0) {
    throw new SpecError(
      "spec_invalid",
      protoKeys.map((at) => ({
        file,
        ...positionAt(map, at, { key: true }),
        path: formatPath(at),
        message: "bad name '__proto__'",
        expected: "a name like my_var (letters, digits, _), other than __proto__",
      })),
    );
  }
  const defaultName = path.basename(file).replace(/\.(ya?ml)$/i, "");
  const schemaProblems = outputSchema?.problems ?? [];
  const normalizeOptions: NormalizeOptions = { ...options, ...(outputSchema && { outputSchema }) };
  const parsed = taskSchema.safeParse(value);
  if (!parsed.success) {
    const problems = problemsFromIssues(parsed.error.issues, value, taskSchema, map);
    problems.push(...problemsInValidSections(value, parsed.error.issues, map, defaultName, normalizeOptions));
    problems.push(...schemaProblems);
    throw new SpecError("spec_invalid", dedupe(problems));
  }

  const { spec, problems } = normalizeSpec(parsed.data, map, defaultName, normalizeOptions);
  problems.push(...schemaProblems);
  if (!spec || problems.length > 0) throw new SpecError("spec_invalid", dedupe(problems));
  return { file: path.resolve(file), dir: path.dirname(path.resolve(file)), name: spec.name, spec };
}

/**
 * Parses the text of a task file into its source map (for positions) and plain value, with the
 * YAML problems as positioned spec problems (one per line: one mistake often makes the parser
 * complain several times on the same line).
 */
export function parseSpecSource(
  text: string,
  file: string,
): { map: SourceMap; value: unknown; problems: SpecProblem[] } {
  const { doc, lineCounter, problems: found, value } = parseYaml(text);
  const map: SourceMap = { file, source: text, doc, lineCounter };
  const lines = new Set<number>();
  const problems: SpecProblem[] = [];
  for (const problem of found) {
    const position = positionOf(map, problem.offset);
    if (problem.kind === "syntax" && lines.has(position.line)) continue;
    lines.add(position.line);
    const prefix = problem.kind === "syntax" ? "YAML syntax error: " : "";
    problems.push({ file, ...position, path: "", message: `${prefix}${problem.message}` });
  }
  return { map, value, problems };
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
  options: NormalizeOptions,
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

/** The records of a spec whose `__proto__` key zod would drop: vars, mcp_servers and each server's env and headers. */
function protoKeyPaths(value: unknown): PropertyKey[][] {
  const out: PropertyKey[][] = [];
  const check = (record: unknown, at: PropertyKey[]) => {
    if (typeof record === "object" && record !== null && Object.hasOwn(record, "__proto__"))
      out.push([...at, "__proto__"]);
  };
  const spec = value as { vars?: unknown; mcp_servers?: unknown };
  check(spec.vars, ["vars"]);
  check(spec.mcp_servers, ["mcp_servers"]);
  if (typeof spec.mcp_servers === "object" && spec.mcp_servers !== null) {
    for (const [name, server] of Object.entries(spec.mcp_servers)) {
      if (typeof server !== "object" || server === null) continue;
      check((server as { env?: unknown }).env, ["mcp_servers", name, "env"]);
      check((server as { headers?: unknown }).headers, ["mcp_servers", name, "headers"]);
    }
  }
  return out;
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
