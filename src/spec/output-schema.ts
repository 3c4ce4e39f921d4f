import path from "node:path";
import { errorText } from "../core/errors.ts";
import type { SchemaProblem } from "../system/json-schema-check.ts";
import { readInputFile } from "../system/read-input-file.ts";
import { parseYaml } from "../system/yaml-input.ts";
import { formatPath, type SpecProblem } from "./errors.ts";
import { positionAt, type SourceMap } from "./positions.ts";
import type { OutputSchemaSpec } from "./types.ts";

/** Schema files larger than this are refused unread: 1 MiB. */
export const MAX_OUTPUT_SCHEMA_BYTES = 1024 * 1024;

/** The spec's `output_schema` read and checked, or what is wrong with it, positioned. */
export interface ResolvedOutputSchema {
  spec?: OutputSchemaSpec;
  problems: SpecProblem[];
}

/**
 * Reads the spec's `output_schema` (`value` is the whole parsed task file) before the spec is
 * validated, so its problems are reported with the rest: a path is read relative to `dir` (with
 * `readInputFile`: no FIFO, device or huge file) and must be one JSON object; the schema, inline or
 * read, must be a valid JSON Schema (ajv, strict: unknown keywords and formats are errors). Each
 * problem points into the task file, or into the .json file for what is wrong inside it.
 * Undefined when the spec has no `output_schema` of a usable type (the schema reports that).
 */
export async function resolveOutputSchema(
  value: unknown,
  map: SourceMap,
  dir: string,
): Promise<ResolvedOutputSchema | undefined> {
  if (typeof value !== "object" || value === null) return undefined;
  const raw = (value as { output_schema?: unknown }).output_schema;
  const field = ["output_schema"];
  const inTask = (message: string, expected?: string): SpecProblem => ({
    file: map.file,
    ...positionAt(map, field),
    path: "output_schema",
    message,
    ...(expected && { expected }),
  });
  if (typeof raw === "string" && raw !== "") {
    const file = path.resolve(dir, raw);
    const read = await readInputFile(file, { maxBytes: MAX_OUTPUT_SCHEMA_BYTES });
    if (!read.ok) {
      const what = read.problem === "not_found" ? "does not exist" : read.message;
      return {
        problems: [inTask(`the schema file ${raw} ${what}`, "a .json file, relative to the task file")],
      };
    }
    // Named as the task file is (as given), so `file:line:col` reads from where the command ran.
    const shown = path.isAbsolute(raw) ? raw : path.join(path.dirname(map.file), raw);
    const parsed = parseJsonFile(read.text, shown);
    if ("problem" in parsed) return { problems: [parsed.problem] };
    if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
      return {
        problems: [{ file: shown, line: 1, column: 1, path: "", message: "the schema is not a JSON object" }],
      };
    }
    const schema = parsed.value as Record<string, unknown>;
    const problems = await schemaProblems(schema, parsed.map, []);
    return problems.length > 0 ? { problems } : { spec: { schema, file }, problems: [] };
  }
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    const schema = raw as Record<string, unknown>;
    const problems = await schemaProblems(schema, map, field);
    return problems.length > 0 ? { problems } : { spec: { schema }, problems: [] };
  }
  return undefined;
}

async function schemaProblems(
  schema: Record<string, unknown>,
  map: SourceMap,
  base: PropertyKey[],
): Promise<SpecProblem[]> {
  // ajv loads only for tasks that have a schema.
  const { compileJsonSchema } = await import("../system/json-schema-check.ts");
  const compiled = compileJsonSchema(schema, { strict: true });
  if (compiled.ok) return [];
  return compiled.problems.map((problem: SchemaProblem) => {
    const at = [...base, ...problem.path];
    return {
      file: map.file,
      ...positionAt(map, at, { key: problem.key === true }),
      path: formatPath(at),
      message: problem.message,
      expected: "a JSON Schema (docs/task-spec.md, output_schema)",
    };
  });
}

/**
 * A JSON file as a value and a source map for positions. JSON.parse decides what is JSON (YAML
 * would take comments and bare words); the YAML parser, which reads JSON too, gives the positions.
 */
function parseJsonFile(
  text: string,
  file: string,
): { value: unknown; map: SourceMap } | { problem: SpecProblem } {
  try {
    JSON.parse(text);
  } catch (error) {
    const message = errorText(error);
    const { line, column } = jsonErrorPosition(text, message);
    return {
      problem: {
        file,
        line,
        column,
        path: "",
        message: `not valid JSON: ${message.replace(/ in JSON at position \d+.*$/, "")}`,
      },
    };
  }
  const { doc, lineCounter, problems, value } = parseYaml(text);
  const map: SourceMap = { file, source: text, doc, lineCounter };
  const first = problems[0];
  if (first) {
    // JSON.parse keeps the last of duplicate keys without a word; a schema must say one thing.
    const { line, col } = lineCounter.linePos(first.offset);
    return { problem: { file, line, column: col, path: "", message: first.message } };
  }
  return { value, map };
}

/** Node's JSON.parse names `(line L column C)` or `at position N`; the start of the file otherwise. */
function jsonErrorPosition(text: string, message: string): { line: number; column: number } {
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /at position (\d+)/.exec(message);
  if (!position) return { line: 1, column: 1 };
  const before = text.slice(0, Number(position[1]));
  const lines = before.split("\n");
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}
