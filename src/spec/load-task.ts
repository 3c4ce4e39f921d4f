import { readFile } from "node:fs/promises";
import path from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { SpecError, type SpecProblem } from "./errors.ts";
import { normalizeSpec } from "./normalize.ts";
import { positionOf, type SourceMap } from "./positions.ts";
import { taskSchema } from "./schema.ts";
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
  const parsed = taskSchema.safeParse(value);
  if (!parsed.success) {
    throw new SpecError("spec_invalid", problemsFromIssues(parsed.error.issues, value, taskSchema, map));
  }

  const defaultName = path.basename(file).replace(/\.(ya?ml)$/i, "");
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
