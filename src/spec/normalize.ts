import type { Model, ThinkingLevel } from "../core/types.ts";
import { serverNamed } from "../providers/local-recipes.ts";
import { DEFAULT_CAPS, type ResourceCaps } from "../system/caps.ts";
import type { SpecProblem } from "./errors.ts";
import { createFieldChecks, type FieldChecks, type Path } from "./field-checks.ts";
import { hooksOf } from "./normalize-hooks.ts";
import { checkMcpToolPatterns, normalizeMcpServers } from "./normalize-mcp.ts";
import type { ResolvedOutputSchema } from "./output-schema.ts";
import type { SourceMap } from "./positions.ts";
import { type KnownToolName, MODEL_REF_PATTERN, type RawTaskSpec } from "./schema.ts";
import { showText } from "./show-text.ts";
import { parseSize } from "./size.ts";
import {
  DEFAULT_COMPACTION,
  DEFAULT_OUTPUT_DIR,
  DEFAULT_REVIEW_MAX_COMMENTS,
  DEFAULT_TOOLS,
  DEFAULT_WIND_DOWN_AT,
  type LoadTaskOptions,
  type OutputSchemaSpec,
  type TaskSpec,
  type ToolOptions,
  type ToolSpec,
} from "./types.ts";

/**
 * Turns a schema-valid raw spec into the normalised `TaskSpec`, checking what the schema cannot:
 * templates and undefined variables, globs, providers, duplicate tools, an empty prompt. Collects
 * every problem rather than stopping at the first. One step per part of the spec, in file order;
 * each reports through the same checks.
 */
export function normalizeSpec(
  raw: RawTaskSpec,
  map: SourceMap,
  defaultName: string,
  options: NormalizeOptions,
): { spec?: TaskSpec; problems: SpecProblem[] } {
  const problems: SpecProblem[] = [];
  const vars: Record<string, string> = {};
  const env = options.env ?? process.env;
  const checks = createFieldChecks(map, vars, env, problems);
  fillVars(vars, raw, options, checks);
  const { model, thinking } = modelOf(raw, options, checks);
  const { prompt, system } = promptsOf(raw, options, checks);
  const tools = toolsOf(raw, checks);
  const hooks = hooksOf(raw, checks);
  const mcpServers = normalizeMcpServers(raw.mcp_servers, checks, env, vars);
  checkMcpToolPatterns(hooks.beforeToolCall, "before_tool_call", mcpServers, checks);
  checkMcpToolPatterns(hooks.afterToolCall, "after_tool_call", mcpServers, checks);
  const outputSchema = outputSchemaOf(raw.output_schema, options.outputSchema, checks.report);
  raw.protect?.forEach((pattern, i) => {
    checks.glob(pattern, ["protect", i], "path");
  });
  const limits = limitsOf(raw, checks);
  const compaction = compactionOf(raw, checks);
  const caps = capsOf(raw.caps, (key, value) =>
    checks.report({ path: ["caps", key] }, `bad size '${value}': less than one byte`, {
      expected: "a size like 32MiB or 1GiB",
    }),
  );

  if (problems.length > 0 || !model) return { problems };
  return {
    problems,
    spec: {
      name: raw.name ?? defaultName,
      model,
      ...(thinking !== undefined && { thinking }),
      ...(system !== undefined && { system }),
      prompt,
      vars,
      workdir: raw.workdir ?? ".",
      tools,
      execution: raw.execution ?? "parallel",
      sandbox: raw.sandbox ?? "auto",
      sandboxNetwork: raw.sandbox_network ?? false,
      protect: raw.protect ?? [],
      limits,
      compaction,
      caps,
      hooks,
      outputs: { dir: raw.outputs?.dir ?? DEFAULT_OUTPUT_DIR },
      review: {
        inline: raw.review?.inline ?? false,
        maxComments: raw.review?.max_comments ?? DEFAULT_REVIEW_MAX_COMMENTS,
      },
      mcpServers,
      ...(outputSchema && { outputSchema }),
    },
  };
}

/** What `normalizeSpec` takes beyond the loader's options: the `output_schema` `loadTask` read. */
export interface NormalizeOptions extends LoadTaskOptions {
  outputSchema?: ResolvedOutputSchema;
}

/**
 * The spec's `output_schema`: as `loadTask` read and checked it (`resolved`), else an inline one
 * as written (the run checks it when it compiles it). A file path needs `loadTask`.
 */
function outputSchemaOf(
  raw: RawTaskSpec["output_schema"],
  resolved: ResolvedOutputSchema | undefined,
  report: FieldChecks["report"],
): OutputSchemaSpec | undefined {
  if (raw === undefined) return undefined;
  if (resolved) return resolved.spec;
  if (typeof raw === "object") return { schema: raw };
  report({ path: ["output_schema"] }, "an output_schema file is read when the task is loaded from a file", {
    expected: "loadTask(file), or the schema inline",
  });
  return undefined;
}

/** The spec's `vars`, then each `--var` over them (a bad name is reported, not set). */
function fillVars(
  vars: Record<string, string>,
  raw: RawTaskSpec,
  options: LoadTaskOptions,
  { report }: FieldChecks,
): void {
  for (const [key, value] of Object.entries(raw.vars ?? {})) vars[key] = String(value);
  for (const [key, value] of Object.entries(options.vars ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || key === "__proto__") {
      report({ flag: "--var" }, `bad variable name ${showText(key)}`, {
        expected: "a name like my_var (letters, digits, _)",
      });
    } else {
      vars[key] = value;
    }
  }
}

/** `--model` over the spec's `model` (whose `thinking` then no longer applies); one is required. */
function modelOf(
  raw: RawTaskSpec,
  options: LoadTaskOptions,
  { report, model }: FieldChecks,
): { model?: Model; thinking?: ThinkingLevel } {
  const thinking = typeof raw.model === "object" ? raw.model.thinking : undefined;
  if (options.modelOverride !== undefined) {
    if (!MODEL_REF_PATTERN.test(options.modelOverride) && !serverNamed(options.modelOverride)) {
      report({ flag: "--model" }, `bad model reference ${showText(options.modelOverride)}`, {
        expected: '"provider:id"',
      });
      return { thinking };
    }
    const resolved = model(options.modelOverride, { flag: "--model" });
    return resolved ? { model: resolved } : {};
  }
  if (raw.model !== undefined) {
    const resolved = model(raw.model, { path: ["model"] });
    return { ...(resolved && { model: resolved }), thinking };
  }
  report({ path: [] }, "missing required field 'model'", { expected: '"provider:id", or --model' });
  return { thinking };
}

/** `--prompt` over the spec's `prompt` (required, not blank), and `system`, templates resolved. */
function promptsOf(
  raw: RawTaskSpec,
  options: LoadTaskOptions,
  { report, template }: FieldChecks,
): { prompt: string; system?: string } {
  let prompt = "";
  if (options.promptOverride !== undefined) {
    prompt = template(options.promptOverride, { flag: "--prompt" }, ["vars", "env"], false).text;
    if (prompt.trim() === "")
      report({ flag: "--prompt" }, "the prompt is empty", { expected: "the task for the model" });
  } else if (raw.prompt === undefined) {
    report({ path: [] }, "missing required field 'prompt'", {
      expected: "the task for the model, or --prompt",
    });
  } else {
    prompt = template(raw.prompt, { path: ["prompt"] }, ["vars", "env"], false).text;
    if (raw.prompt.trim() === "")
      report({ path: ["prompt"] }, "the prompt is empty", { expected: "the task for the model" });
  }
  if (raw.system === undefined) return { prompt };
  return { prompt, system: template(raw.system, { path: ["system"] }, ["vars", "env"], false).text };
}

/** The tools (default: `DEFAULT_TOOLS`), each listed once, with their options checked. */
function toolsOf(raw: RawTaskSpec, checks: FieldChecks): ToolSpec[] {
  const tools: ToolSpec[] = [];
  const seen = new Map<string, number>();
  (raw.tools ?? DEFAULT_TOOLS).forEach((entry, index) => {
    const name = (typeof entry === "string" ? entry : Object.keys(entry)[0]) as KnownToolName;
    const rawOptions = typeof entry === "string" ? null : ((entry as Record<string, unknown>)[name] ?? null);
    if (seen.has(name)) {
      checks.report(
        { path: ["tools", index] },
        `tool '${name}' is listed twice (first at tools[${seen.get(name)}])`,
      );
      return;
    }
    seen.set(name, index);
    tools.push({ name, options: toolOptions(rawOptions, ["tools", index, name], checks) });
  });
  return tools;
}

function toolOptions(value: unknown, path: Path, { glob, duration }: FieldChecks): ToolOptions {
  const o = (value ?? {}) as Record<string, unknown> & {
    allow?: string[];
    deny?: string[];
    protect?: string[];
    timeout?: string | number;
    env?: string[];
    max_output_lines?: number;
    max_output_bytes?: number;
  };
  const out: ToolOptions = {};
  for (const key of ["allow", "deny", "protect"] as const) {
    const list = o[key];
    if (!list) continue;
    list.forEach((pattern, i) => {
      glob(pattern, [...path, key, i], key === "protect" ? "path" : "command");
    });
    out[key] = list;
  }
  const timeoutMs = duration(o.timeout, [...path, "timeout"]);
  if (timeoutMs !== undefined) out.timeoutMs = timeoutMs;
  if (o.env) out.env = o.env;
  if (o.max_output_lines !== undefined) out.maxOutputLines = o.max_output_lines;
  if (o.max_output_bytes !== undefined) out.maxOutputBytes = o.max_output_bytes;
  return out;
}

function limitsOf(raw: RawTaskSpec, { duration }: FieldChecks): TaskSpec["limits"] {
  const limits: TaskSpec["limits"] = {};
  if (raw.limits?.max_turns !== undefined) limits.maxTurns = raw.limits.max_turns;
  if (raw.limits?.max_cost_usd !== undefined) limits.maxCostUsd = raw.limits.max_cost_usd;
  if (raw.limits?.max_tokens !== undefined) limits.maxTokens = raw.limits.max_tokens;
  const timeoutMs = duration(raw.limits?.timeout, ["limits", "timeout"]);
  if (timeoutMs !== undefined) limits.timeoutMs = timeoutMs;
  const windDown = raw.limits?.wind_down ?? DEFAULT_WIND_DOWN_AT;
  if (windDown !== false) limits.windDownAt = windDown;
  return limits;
}

function compactionOf(raw: RawTaskSpec, { report }: FieldChecks): TaskSpec["compaction"] {
  const compaction =
    raw.compaction === false
      ? { ...DEFAULT_COMPACTION, enabled: false }
      : {
          enabled: true,
          threshold: raw.compaction?.threshold ?? DEFAULT_COMPACTION.threshold,
          target: raw.compaction?.target ?? DEFAULT_COMPACTION.target,
        };
  if (compaction.target > compaction.threshold) {
    report(
      {
        path: ["compaction", raw.compaction && raw.compaction.target !== undefined ? "target" : "threshold"],
      },
      `compaction.target (${compaction.target}) is above compaction.threshold (${compaction.threshold})`,
      { expected: "a target below the threshold, e.g. threshold: 0.85, target: 0.5" },
    );
  }
  return compaction;
}

/**
 * The spec's `caps` with the defaults filled in. The schema has checked each value's form; a size
 * that rounds to no byte at all (`0MiB`, `0.1B`) is reported through `bad`.
 */
function capsOf(raw: RawTaskSpec["caps"], bad: (key: string, value: string | number) => void): ResourceCaps {
  const bytes = (key: keyof NonNullable<RawTaskSpec["caps"]>, fallback: number) => {
    const value = raw?.[key];
    if (value === undefined) return fallback;
    const parsed = parseSize(value);
    if (parsed === undefined) bad(key, value);
    return parsed ?? fallback;
  };
  return {
    commandOutputBytes: bytes("command_output", DEFAULT_CAPS.commandOutputBytes),
    savedOutputBytes: bytes("saved_outputs", DEFAULT_CAPS.savedOutputBytes),
    tmpBytes: bytes("tmp_size", DEFAULT_CAPS.tmpBytes),
    devShmBytes: bytes("dev_shm_size", DEFAULT_CAPS.devShmBytes),
    homeBytes: bytes("home_size", DEFAULT_CAPS.homeBytes),
    processes: raw?.processes ?? DEFAULT_CAPS.processes,
    turnResultBytes: bytes("turn_results", DEFAULT_CAPS.turnResultBytes),
    turnToolCalls: raw?.turn_tool_calls ?? DEFAULT_CAPS.turnToolCalls,
  };
}
