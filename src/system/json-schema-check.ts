/**
 * JSON Schema checking with ajv, for the schemas users and servers give us: the spec's
 * `output_schema` (strict: an unknown keyword or format is a mistake worth an error) and MCP tools'
 * input schemas (lenient: a server's schema is what it is). The dialect follows `$schema`: draft-07,
 * 2019-09 or 2020-12 (the default, as in MCP and the providers' tool schemas).
 *
 * Violations are listed one a line with the JSON pointer of the value (`/verdict`, `(root)`), in a
 * form the model can act on.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import * as formatsModule from "ajv-formats";
import { errorText } from "../core/errors.ts";

/** A compiled schema: `check` returns every violation of `value`, [] when it is valid. */
export interface CompiledSchema {
  check(value: unknown): string[];
}

/** Why a schema cannot be used: at `path` inside it (keys and indexes, [] for the root). */
export interface SchemaProblem {
  path: (string | number)[];
  message: string;
  /** The problem is the last key of `path` itself (an unknown keyword), not its value. */
  key?: boolean;
}

export type CompileResult = { ok: true; schema: CompiledSchema } | { ok: false; problems: SchemaProblem[] };

/** Most violations listed for one value; the rest are counted. */
export const MAX_LISTED_VIOLATIONS = 20;

const DIALECTS: Record<string, "07" | "2019" | "2020"> = {
  "http://json-schema.org/draft-07/schema": "07",
  "https://json-schema.org/draft/2019-09/schema": "2019",
  "https://json-schema.org/draft/2020-12/schema": "2020",
};

type AnyAjv = Ajv | Ajv2019 | Ajv2020;
const instances = new Map<string, AnyAjv>();

/** One ajv per dialect and mode: compiling is what costs, not the instance. */
function ajvFor(dialect: "07" | "2019" | "2020", strict: boolean): AnyAjv {
  const key = `${dialect}:${strict}`;
  let ajv = instances.get(key);
  if (!ajv) {
    const options = { allErrors: true, strict, validateFormats: true, logger: false as const };
    ajv =
      dialect === "07" ? new Ajv(options) : dialect === "2019" ? new Ajv2019(options) : new Ajv2020(options);
    addFormats(ajv);
    instances.set(key, ajv);
  }
  return ajv;
}

/** ajv-formats is CommonJS: its plugin is the module itself or its `default`, by loader. */
function addFormats(ajv: AnyAjv): void {
  const loaded = formatsModule as unknown as { default?: unknown };
  const plugin = (typeof loaded.default === "function" ? loaded.default : loaded) as (a: AnyAjv) => void;
  plugin(ajv);
}

/**
 * Compiles `schema`. `strict`: unknown keywords and formats are problems (the spec's own schema);
 * otherwise they are ignored (a server's). Never throws.
 */
export function compileJsonSchema(schema: unknown, options: { strict: boolean }): CompileResult {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return { ok: false, problems: [{ path: [], message: "a JSON Schema is an object" }] };
  }
  const declared = (schema as { $schema?: unknown }).$schema;
  let dialect: "07" | "2019" | "2020" = "2020";
  if (declared !== undefined) {
    const known = typeof declared === "string" ? DIALECTS[declared.replace(/#$/, "")] : undefined;
    if (!known) {
      return {
        ok: false,
        problems: [
          {
            path: ["$schema"],
            message: `unsupported $schema ${JSON.stringify(declared)}: use draft-07, 2019-09 or 2020-12 (the default)`,
          },
        ],
      };
    }
    dialect = known;
  }
  const ajv = ajvFor(dialect, options.strict);
  if (!ajv.validateSchema(schema)) return { ok: false, problems: metaProblems(ajv.errors ?? []) };
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    const message = errorText(error);
    // An unknown keyword is the key itself, not its value.
    const key = /unknown keyword/.test(message);
    const problem = { path: compilePath(schema, message), message: plainCompileMessage(message) };
    return { ok: false, problems: [{ ...problem, ...(key && { key }) }] };
  } finally {
    // Schemas with an `$id` would stay registered and clash with the next one of the same id.
    const id = (schema as { $id?: unknown }).$id;
    if (typeof id === "string") ajv.removeSchema(id);
  }
  return {
    ok: true,
    schema: {
      check(value) {
        if (validate(value)) return [];
        return formatViolations(validate.errors ?? []);
      },
    },
  };
}

/** ajv's errors of a value, one line each: `- /verdict: must be equal to one of: "approve", "reject"`. */
export function formatViolations(errors: readonly ErrorObject[]): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // An anyOf/oneOf summary repeats what its branches said.
    if ((error.keyword === "anyOf" || error.keyword === "oneOf") && errors.length > 1) continue;
    const line = `- ${error.instancePath === "" ? "(root)" : error.instancePath}: ${violationText(error)}`;
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
  }
  if (lines.length > MAX_LISTED_VIOLATIONS) {
    const more = lines.length - MAX_LISTED_VIOLATIONS;
    return [...lines.slice(0, MAX_LISTED_VIOLATIONS), `- … and ${more} more`];
  }
  return lines;
}

function violationText(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `missing required property ${JSON.stringify(params.missingProperty)}`;
    case "additionalProperties":
      return `unexpected property ${JSON.stringify(params.additionalProperty)}`;
    case "enum":
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return error.message ?? error.keyword;
  }
}

/** The meta-schema's complaints, one per place in the schema (its first, most specific one). */
function metaProblems(errors: readonly ErrorObject[]): SchemaProblem[] {
  const byPath = new Map<string, SchemaProblem>();
  for (const error of errors) {
    if (error.keyword === "anyOf" || error.keyword === "oneOf") continue;
    if (byPath.has(error.instancePath)) continue;
    const path = pointerPath(error.instancePath);
    const message =
      error.keyword === "enum"
        ? `${violationText(error)}`
        : error.keyword === "additionalProperties"
          ? `unknown keyword ${JSON.stringify((error.params as { additionalProperty?: unknown }).additionalProperty)}`
          : (error.message ?? error.keyword);
    byPath.set(error.instancePath, { path, message: `not a valid JSON Schema: ${message}` });
  }
  const problems = [...byPath.values()];
  return problems.length > 0 ? problems : [{ path: [], message: "not a valid JSON Schema" }];
}

/** `/properties/a~1b/0` → ["properties", "a/b", 0]. */
function pointerPath(pointer: string): (string | number)[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((step) => step.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((step) => (/^\d+$/.test(step) ? Number(step) : step));
}

/**
 * Where a compile error is, when its message names it: an unknown keyword (the first place it is a
 * key), an unknown format (`at path "#/properties/x"`), an unresolved `$ref` (the first place it is
 * the value). The root otherwise.
 */
function compilePath(schema: object, message: string): (string | number)[] {
  const keyword = /unknown keyword: "([^"]+)"/.exec(message)?.[1];
  if (keyword !== undefined) return findPath(schema, (key) => key === keyword) ?? [];
  const at = /at path "#([^"]*)"/.exec(message)?.[1];
  if (at !== undefined) return [...pointerPath(at), "format"];
  const ref = /can't resolve reference (\S+)/.exec(message)?.[1];
  if (ref !== undefined) return findPath(schema, (key, value) => key === "$ref" && value === ref) ?? [];
  return [];
}

function plainCompileMessage(message: string): string {
  const keyword = /unknown keyword: "([^"]+)"/.exec(message)?.[1];
  if (keyword !== undefined) return `unknown keyword ${JSON.stringify(keyword)}`;
  const format = /unknown format "([^"]+)"/.exec(message)?.[1];
  if (format !== undefined) return `unknown format ${JSON.stringify(format)}`;
  const ref = /can't resolve reference (\S+)/.exec(message)?.[1];
  if (ref !== undefined) return `$ref ${JSON.stringify(ref)} points nowhere in the schema`;
  return message;
}

/** The path of the first key (depth first) for which `test` holds. */
function findPath(
  value: unknown,
  test: (key: string, value: unknown) => boolean,
  path: (string | number)[] = [],
): (string | number)[] | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value);
  for (const [key, child] of entries) {
    if (typeof key === "string" && test(key, child)) return [...path, key];
    const found = findPath(child, test, [...path, key]);
    if (found) return found;
  }
  return undefined;
}
