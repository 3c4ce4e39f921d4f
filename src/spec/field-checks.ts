import picomatch from "picomatch";
import { errorText } from "../core/errors.ts";
import type { Model } from "../core/types.ts";
import { recipeHint, serverRecipe } from "../providers/local-recipes.ts";
import { KNOWN_PROVIDERS, parseModelRef } from "../providers/model-ref.ts";
import { parseDuration } from "./duration.ts";
import { formatPath, type SpecProblem } from "./errors.ts";
import { createPieceLocator, type Position, positionAt, type SourceMap } from "./positions.ts";
import type { RawMatch, RawModel } from "./schema.ts";
import { showText } from "./show-text.ts";
import { closest } from "./suggest.ts";
import {
  parseTemplate,
  quotedReferences,
  renderTemplate,
  type TemplateNamespace,
  type TemplateRef,
} from "./template.ts";
import type { CommandTemplate, HookMatch } from "./types.ts";

export type Path = PropertyKey[];

/** The checks `createFieldChecks` returns, shared by the steps of `normalizeSpec`. */
export type FieldChecks = ReturnType<typeof createFieldChecks>;

/** Undefined variables that get a "did you mean" (each search compares with every variable). */
const SUGGESTION_BUDGET = 100;

/** Where a value came from, to position its problems: a spec field, or a command-line flag. */
export type Origin = { path: Path } | { flag: string };

/**
 * The checks `normalizeSpec` applies field by field, each recording problems (positioned through
 * `map`) into `problems` and returning the normalised value, or undefined when it is unusable.
 * `vars` is read when templates are resolved, so it may be filled after this is created.
 */
export function createFieldChecks(
  map: SourceMap,
  vars: Record<string, string>,
  env: NodeJS.ProcessEnv,
  problems: SpecProblem[],
) {
  const report = (origin: Origin, message: string, extra: Partial<SpecProblem> = {}, key = false) => {
    if ("flag" in origin) {
      problems.push({ file: origin.flag, line: 0, column: 0, path: "", message, ...extra });
    } else {
      problems.push({
        file: map.file,
        ...positionAt(map, origin.path, { key }),
        path: formatPath(origin.path),
        message,
        ...extra,
      });
    }
  };

  // Suggestions for undefined variables compare with every defined one: a file with thousands of
  // undefined references gets them for the first SUGGESTION_BUDGET only, so it stays linear.
  let varNames: string[] | undefined;
  let suggestions = 0;
  const suggestVar = (name: string): string | undefined => {
    if (suggestions++ >= SUGGESTION_BUDGET) return undefined;
    varNames ??= Object.keys(vars);
    return closest(name, varNames);
  };

  const resolve = (
    ref: TemplateRef,
    origin: Origin,
    locate: (index: number) => Position,
  ): string | undefined => {
    const where = (message: string, extra: Partial<SpecProblem>) => {
      if ("flag" in origin) report(origin, message, extra);
      else {
        problems.push({
          file: map.file,
          ...locate(ref.index),
          path: formatPath(origin.path),
          message,
          ...extra,
        });
      }
    };
    if (ref.ns === "vars") {
      if (Object.hasOwn(vars, ref.name)) return vars[ref.name];
      const near = suggestVar(ref.name);
      where(`undefined variable ${showText(`vars.${ref.name}`)}`, {
        expected: `a variable defined under vars: or passed with --var ${ref.name.length > 60 ? "NAME" : ref.name}=VALUE`,
        ...(near && { suggestion: `'vars.${near}'` }),
      });
      return undefined;
    }
    if (ref.ns === "env") {
      const value = env[ref.name];
      if (value !== undefined) return value;
      where(`environment variable ${showText(ref.name)} is not set`, {
        expected: `${ref.name} set in the environment, or a vars: entry used instead`,
      });
      return undefined;
    }
    return undefined;
  };

  /** Templates a text field; `quote` for hook commands, where `{{ tool.* }}` stays for later. */
  const template = (text: string, origin: Origin, namespaces: TemplateNamespace[], quote: boolean) => {
    const parsed = parseTemplate(text, namespaces);
    const locate = createPieceLocator(map, "flag" in origin ? [] : origin.path, [
      ...parsed.issues,
      ...parsed.parts.filter((part) => typeof part !== "string"),
    ]);
    for (const issue of parsed.issues) {
      const extra = {
        ...(issue.expected && { expected: issue.expected }),
        ...(issue.suggestion && { suggestion: issue.suggestion }),
      };
      if ("flag" in origin) report(origin, issue.message, extra);
      else {
        problems.push({
          file: map.file,
          ...locate(issue.index),
          path: formatPath(origin.path),
          message: issue.message,
          ...extra,
        });
      }
    }
    if (quote && !("flag" in origin)) {
      for (const ref of quotedReferences(parsed.parts)) {
        problems.push({
          file: map.file,
          ...locate(ref.index),
          path: formatPath(origin.path),
          message: `${ref.raw} stands inside quotes (or a heredoc), where the quotes the runner puts around its value are literal and a value such as $(cmd) runs`,
          expected: `${ref.raw} as a word of its own, without quotes: the runner quotes the value`,
        });
      }
    }
    const parts: CommandTemplate["parts"] = [];
    for (const part of parsed.parts) {
      if (typeof part !== "string" && part.ns === "tool") {
        parts.push(part);
        continue;
      }
      const value = typeof part === "string" ? part : (resolve(part, origin, locate) ?? "");
      const rendered =
        typeof part === "string" || !quote ? value : renderTemplate([part], () => value, { quote });
      const previous = parts.at(-1);
      if (typeof previous === "string") parts[parts.length - 1] = previous + rendered;
      else parts.push(rendered);
    }
    return { text: parts.map((p) => (typeof p === "string" ? p : p.raw)).join(""), parts };
  };

  const command = (text: string, path: Path): CommandTemplate =>
    template(text, { path }, ["vars", "env", "tool"], true);

  const model = (value: RawModel, origin: Origin): Model | undefined => {
    const provider = typeof value === "string" ? value.slice(0, value.indexOf(":")) : value.provider;
    if (!(KNOWN_PROVIDERS as readonly string[]).includes(provider)) {
      const near = closest(provider, KNOWN_PROVIDERS);
      const at =
        "flag" in origin || typeof value === "string" ? origin : { path: [...origin.path, "provider"] };
      const recipe = serverRecipe(provider);
      if (recipe) {
        const id = typeof value === "string" ? value.slice(value.indexOf(":") + 1) : String(value.id ?? "");
        report(at, `unknown provider ${showText(provider)}: ${recipeHint(recipe, id)}`);
        return undefined;
      }
      report(at, `unknown provider ${showText(provider)}`, {
        expected: `one of ${KNOWN_PROVIDERS.join(", ")}`,
        ...(near && { suggestion: `'${near}'` }),
      });
      return undefined;
    }
    try {
      return parseModelRef(value);
    } catch (error) {
      report(origin, errorText(error));
      return undefined;
    }
  };

  const glob = (pattern: string, path: Path, kind: "path" | "command" | "other") => {
    try {
      picomatch.makeRe(pattern, { strictBrackets: true });
    } catch (error) {
      report({ path }, `bad glob ${showText(pattern)}: ${errorText(error)}`);
    }
    if (kind === "path" && (pattern.startsWith("/") || /^[A-Za-z]:[\\/]/.test(pattern))) {
      report({ path }, `absolute glob ${showText(pattern)} can never match`, {
        expected: "a glob relative to the workspace, like src/**/*.ts",
        suggestion: `'${pattern.replace(/^\/+/, "")}'`,
      });
    }
  };

  const duration = (value: string | number | undefined, path: Path, fallback?: number) => {
    if (value === undefined) return fallback;
    const ms = parseDuration(value);
    if (ms === undefined)
      report({ path }, `bad duration ${showText(String(value))}`, {
        expected: "a duration above zero, like 120s",
      });
    return ms;
  };

  const matchOf = (value: RawMatch | undefined, path: Path): HookMatch | undefined => {
    if (!value) return undefined;
    const out: HookMatch = {};
    if (value.tool !== undefined) out.tools = Array.isArray(value.tool) ? value.tool : [value.tool];
    if (value.path !== undefined) {
      glob(value.path, [...path, "path"], "path");
      out.path = value.path;
    }
    if (value.command !== undefined) {
      glob(value.command, [...path, "command"], "command");
      out.command = value.command;
    }
    return out;
  };

  return { report, template, command, model, glob, duration, matchOf };
}
