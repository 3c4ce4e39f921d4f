import type { z } from "zod";
import { recipeHint, serverNamed } from "../providers/local-recipes.ts";
import { EXAMPLE_MODEL } from "../providers/model-ref.ts";
import { suggestDuration } from "./duration.ts";
import { formatPath, type SpecProblem } from "./errors.ts";
import { nodeAt, positionAt, type SourceMap } from "./positions.ts";
import {
  DURATION_PATTERN,
  KNOWN_TOOLS,
  MCP_TOOL_PATTERN,
  MODEL_REF_PATTERN,
  SIZE_PATTERN,
} from "./schema.ts";
import { showJsonString, showText } from "./show-text.ts";
import { suggestSize } from "./size.ts";
import { closest } from "./suggest.ts";

type Issue = z.core.$ZodIssue;
type Path = PropertyKey[];

/**
 * Turns zod issues into positioned problems with plain-language messages and, where a near miss
 * is likely, a suggestion. `schema` is walked to list the keys an object accepts.
 */
export function problemsFromIssues(
  issues: readonly Issue[],
  value: unknown,
  schema: z.ZodType,
  map: SourceMap,
): SpecProblem[] {
  const problems: SpecProblem[] = [];
  // A refinement over an object that already has a more precise problem inside it adds noise.
  // Every path that holds a precise issue, as a key, so the check is one lookup per issue.
  const holders = new Set<string>();
  for (const issue of issues) {
    if (issue.code === "custom") continue;
    for (let i = 0; i <= issue.path.length; i++) holders.add(pathKey(issue.path.slice(0, i)));
  }
  for (const issue of issues) {
    if (issue.code === "custom" && holders.has(pathKey(issue.path))) continue;
    collect(issue, [], value, schema, map, problems);
  }
  return problems;
}

function pathKey(path: readonly PropertyKey[]): string {
  return path.map((step) => `${typeof step === "number" ? "#" : "."}${String(step)}`).join("\u0000");
}

function collect(
  issue: Issue,
  base: Path,
  root: unknown,
  schema: z.ZodType,
  map: SourceMap,
  out: SpecProblem[],
): void {
  const path = [...base, ...issue.path];
  const value = valueAt(root, path);
  const at = (p: Path, key = false) => ({
    file: map.file,
    ...positionAt(map, p, { key }),
    path: formatPath(p),
  });
  const isToolEntry = path.length === 2 && path[0] === "tools" && typeof path[1] === "number";

  switch (issue.code) {
    case "invalid_union": {
      const branch = pickBranch(issue.errors, value);
      if (branch) {
        for (const sub of branch) collect(sub, path, root, schema, map, out);
        return;
      }
      out.push({ ...at(path), message: `got ${describe(value)}`, expected: unionExpectation(issue.errors) });
      return;
    }
    case "unrecognized_keys": {
      const known = keysAt(schema, path);
      for (const key of issue.keys) {
        const suggestion = closest(key, known);
        out.push({
          ...at([...path, key], true),
          message: isToolEntry ? `unknown tool ${showText(key)}` : `unknown field ${showText(key)}`,
          ...(known.length > 0 && { expected: `one of ${known.join(", ")}` }),
          ...(suggestion && { suggestion: `'${suggestion}'` }),
        });
      }
      return;
    }
    case "invalid_type": {
      if (value === undefined) {
        const key = String(path.at(-1));
        out.push({
          ...at(path),
          message: `missing required field '${key}'`,
          expected: article(issue.expected),
        });
        return;
      }
      const suggestion =
        issue.expected === "number" || issue.expected === "int"
          ? numberFrom(value)
          : issue.expected === "string"
            ? quotedTemplate(map, path)
            : undefined;
      const expected = issue.expected === "number" && isIntegerAt(schema, path) ? "int" : issue.expected;
      out.push({
        ...at(path),
        message: `got ${describe(value)}`,
        expected: article(expected),
        ...(suggestion !== undefined && { suggestion: suggestion }),
      });
      return;
    }
    case "invalid_value": {
      const options = issue.values.map(String);
      const isTool = options.length === KNOWN_TOOLS.length && KNOWN_TOOLS.every((t) => options.includes(t));
      const suggestion = typeof value === "string" ? closest(value, options) : undefined;
      out.push({
        ...at(path),
        message: isTool ? `unknown tool ${describeShort(value)}` : `got ${describe(value)}`,
        expected: `one of ${options.join(", ")}`,
        ...(suggestion && { suggestion: `'${suggestion}'` }),
      });
      return;
    }
    case "invalid_format": {
      const pattern = "pattern" in issue ? String(issue.pattern) : "";
      if (pattern === String(DURATION_PATTERN)) {
        const suggestion = typeof value === "string" ? suggestDuration(value) : undefined;
        out.push({
          ...at(path),
          message: `bad duration ${describeShort(value)}`,
          expected: "a duration like 120s, 20m, 1h30m or 500ms",
          ...(suggestion && { suggestion: `'${suggestion}'` }),
        });
      } else if (pattern === String(SIZE_PATTERN)) {
        const suggestion = typeof value === "string" ? suggestSize(value) : undefined;
        out.push({
          ...at(path),
          message: `bad size ${describeShort(value)}`,
          expected: "a size like 32MiB, 1GiB, 512KiB or 100MB, or a number of bytes",
          ...(suggestion && { suggestion: `'${suggestion}'` }),
        });
      } else if (pattern === String(MODEL_REF_PATTERN) && typeof value === "string" && serverNamed(value)) {
        const provider = value.slice(0, value.indexOf(":"));
        const recipe = serverNamed(value);
        out.push({
          ...at(path),
          message: `unknown provider ${showText(provider)}${recipe ? `: ${recipeHint(recipe, value.slice(provider.length + 1))}` : ""}`,
        });
      } else if (pattern === String(MODEL_REF_PATTERN)) {
        const suggestion = typeof value === "string" ? suggestModelRef(value) : undefined;
        out.push({
          ...at(path),
          message: `bad model reference ${describeShort(value)}`,
          expected: `"provider:id", e.g. "${EXAMPLE_MODEL}"`,
          ...(suggestion && { suggestion: `'${suggestion}'` }),
        });
      } else if (pattern === String(MCP_TOOL_PATTERN)) {
        // A hook's `match.tool` that is neither a built-in's name nor an MCP tool's.
        const suggestion = typeof value === "string" ? closest(value, KNOWN_TOOLS) : undefined;
        out.push({
          ...at(path),
          message: `unknown tool ${describeShort(value)}`,
          expected: `one of ${KNOWN_TOOLS.join(", ")}, or an MCP tool mcp__SERVER__TOOL (* and ? allowed)`,
          ...(suggestion && { suggestion: `'${suggestion}'` }),
        });
      } else if (issue.format === "url") {
        out.push({ ...at(path), message: `bad URL ${describeShort(value)}`, expected: "an http(s) URL" });
      } else {
        out.push({
          ...at(path),
          message: `bad value ${describeShort(value)}`,
          expected: `text matching ${pattern}`,
        });
      }
      return;
    }
    case "too_small":
    case "too_big": {
      const empty =
        issue.code === "too_small" &&
        issue.minimum === 1 &&
        (issue.origin === "string" || issue.origin === "array");
      const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
      const inclusive = issue.inclusive !== false;
      const relation = issue.code === "too_small" ? (inclusive ? ">=" : ">") : inclusive ? "<=" : "<";
      out.push({
        ...at(path),
        message: empty ? "must not be empty" : `got ${describe(value)}`,
        ...(!empty && { expected: `a number ${relation} ${String(bound)}` }),
      });
      return;
    }
    case "invalid_key": {
      const name = describeShort(String(path.at(-1)));
      const server = path.length === 2 && path[0] === "mcp_servers";
      const header = path.at(-2) === "headers";
      out.push({
        ...at(path, true),
        message: server ? `bad server name ${name}` : header ? `bad header name ${name}` : `bad name ${name}`,
        expected: server
          ? "letters and digits with single - or _ between them (__ separates the parts of mcp__SERVER__TOOL)"
          : header
            ? "an HTTP header name, like Authorization or X-Api-Key"
            : "a name like my_var (letters, digits, _)",
      });
      return;
    }
    default:
      out.push({ ...at(path), message: issue.message });
  }
}

/** The branch of a union whose type fits the value, so its (deeper) errors are the ones shown. */
function pickBranch(branches: Issue[][], value: unknown): Issue[] | undefined {
  const primitive = value === null || typeof value !== "object";
  const fits = branches.filter(
    (issues) =>
      !issues.some(
        (issue) =>
          issue.path.length === 0 &&
          (issue.code === "invalid_type" || (issue.code === "invalid_value" && !primitive)),
      ),
  );
  return fits[0];
}

function unionExpectation(branches: Issue[][]): string {
  const parts = new Set<string>();
  for (const issues of branches) {
    const root = issues.find((issue) => issue.path.length === 0);
    if (root?.code === "invalid_type") parts.add(article(root.expected));
    else if (root?.code === "invalid_value") parts.add(`one of ${root.values.map(String).join(", ")}`);
  }
  return [...parts].join(" or ") || "another kind of value";
}

/** The schemas at `path`, looking through optional, nullable, default, arrays and unions. */
function schemasAt(schema: z.ZodType, path: Path): z.ZodType[] {
  const unwrap = (s: z.ZodType, out: z.ZodType[]): z.ZodType[] => {
    const def = s.def as { type: string; innerType?: z.ZodType; options?: z.ZodType[] };
    if ((def.type === "optional" || def.type === "nullable" || def.type === "default") && def.innerType) {
      unwrap(def.innerType, out);
    } else if (def.type === "union" && def.options) {
      for (const option of def.options) unwrap(option, out);
    } else {
      out.push(s);
    }
    return out;
  };
  let current = unwrap(schema, []);
  for (const step of path) {
    const next: z.ZodType[] = [];
    for (const s of current) {
      const def = s.def as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType };
      const child =
        def.type === "object" && typeof step === "string"
          ? def.shape?.[step]
          : def.type === "array" && typeof step === "number"
            ? def.element
            : undefined;
      if (child) unwrap(child, next);
    }
    current = next;
  }
  return current;
}

/** The keys the object schema at `path` accepts. */
function keysAt(schema: z.ZodType, path: Path): string[] {
  return schemasAt(schema, path).flatMap((s) =>
    s.def.type === "object" ? Object.keys((s.def as unknown as { shape: object }).shape) : [],
  );
}

function isIntegerAt(schema: z.ZodType, path: Path): boolean {
  return schemasAt(schema, path).some((s) => (s.def as { format?: string }).format === "safeint");
}

function valueAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const step of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[step];
  }
  return value;
}

function article(expected: string): string {
  const names: Record<string, string> = {
    string: "a string",
    number: "a number",
    int: "an integer",
    boolean: "true or false",
    object: "a mapping (key: value)",
    record: "a mapping (key: value)",
    map: "a mapping (key: value)",
    array: "a list",
    null: "nothing",
  };
  return names[expected] ?? expected;
}

/** `the string "ten"`, `the number 3`, `a list`, `nothing`. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Uint8Array) return "binary data (!!binary)";
  if (value instanceof Map) return "a mapping";
  if (value instanceof Set) return "a set (!!set)";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return `the string ${showJsonString(value)}`;
  return `the ${typeof value} ${String(value)}`;
}

function describeShort(value: unknown): string {
  return typeof value === "string" ? showText(value) : describe(value);
}

function numberFrom(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const cleaned = value.replace(/^\s*\$\s*|\s*(usd|USD)\s*$/g, "").trim();
  return cleaned !== "" && Number.isFinite(Number(cleaned)) ? cleaned : undefined;
}

/** `prompt: {{ vars.x }}` is a YAML mapping; the user meant a string: suggest it quoted. */
function quotedTemplate(map: SourceMap, path: Path): string | undefined {
  const node = nodeAt(map, path);
  const text = node?.range ? map.source.slice(node.range[0], node.range[1]).trim() : "";
  if (!text.startsWith("{{") || text.includes("\n") || text.length > 200) return undefined;
  return `"${text.replaceAll('"', '\\"')}" (in quotes)`;
}

function suggestModelRef(value: string): string | undefined {
  const id = value.trim();
  if (/^claude/i.test(id)) return `anthropic:${id}`;
  if (/^(gpt|o\d|codex)/i.test(id)) return `openai:${id}`;
  const slash = /^([a-z][a-z0-9-]*)\/(\S+)$/.exec(id);
  if (slash) return `${slash[1]}:${slash[2]}`;
  return undefined;
}
