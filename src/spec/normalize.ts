import type { Model } from "../core/types.ts";
import { DEFAULT_CAPS, type ResourceCaps } from "../system/caps.ts";
import type { SpecProblem } from "./errors.ts";
import { createFieldChecks, type Path } from "./field-checks.ts";
import type { SourceMap } from "./positions.ts";
import type { KnownToolName, RawTaskSpec } from "./schema.ts";
import { showText } from "./show-text.ts";
import { parseSize } from "./size.ts";
import {
  DEFAULT_HOOK_TIMEOUT_MS,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_OUTPUT_DIR,
  DEFAULT_REVIEW_MAX_COMMENTS,
  DEFAULT_TOOLS,
  type LoadTaskOptions,
  type TaskSpec,
  type ToolOptions,
  type ToolSpec,
} from "./types.ts";

/**
 * Turns a schema-valid raw spec into the normalised `TaskSpec`, checking what the schema cannot:
 * templates and undefined variables, globs, providers, duplicate tools, an empty prompt. Collects
 * every problem rather than stopping at the first.
 */
export function normalizeSpec(
  raw: RawTaskSpec,
  map: SourceMap,
  defaultName: string,
  options: LoadTaskOptions,
): { spec?: TaskSpec; problems: SpecProblem[] } {
  const problems: SpecProblem[] = [];
  const vars: Record<string, string> = {};
  const { report, template, command, model, glob, duration, matchOf } = createFieldChecks(
    map,
    vars,
    options.env ?? process.env,
    problems,
  );
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

  // Model
  let resolvedModel: Model | undefined;
  let thinking = typeof raw.model === "object" ? raw.model.thinking : undefined;
  if (options.modelOverride !== undefined) {
    if (!/^[a-z][a-z0-9-]*:\S+$/.test(options.modelOverride)) {
      report({ flag: "--model" }, `bad model reference ${showText(options.modelOverride)}`, {
        expected: '"provider:id"',
      });
    } else {
      resolvedModel = model(options.modelOverride, { flag: "--model" });
      thinking = undefined;
    }
  } else if (raw.model !== undefined) {
    resolvedModel = model(raw.model, { path: ["model"] });
  } else {
    report({ path: [] }, "missing required field 'model'", { expected: '"provider:id", or --model' });
  }

  // Prompt and system
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
  const system =
    raw.system === undefined
      ? undefined
      : template(raw.system, { path: ["system"] }, ["vars", "env"], false).text;

  // Tools
  const tools: ToolSpec[] = [];
  const seen = new Map<string, number>();
  (raw.tools ?? DEFAULT_TOOLS).forEach((entry, index) => {
    const name = (typeof entry === "string" ? entry : Object.keys(entry)[0]) as KnownToolName;
    const rawOptions = typeof entry === "string" ? null : ((entry as Record<string, unknown>)[name] ?? null);
    if (seen.has(name)) {
      report(
        { path: ["tools", index] },
        `tool '${name}' is listed twice (first at tools[${seen.get(name)}])`,
      );
      return;
    }
    seen.set(name, index);
    tools.push({ name, options: toolOptions(rawOptions, ["tools", index, name]) });
  });

  function toolOptions(value: unknown, path: Path): ToolOptions {
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

  // Hooks
  const hooks: TaskSpec["hooks"] = {
    beforeToolCall: [],
    afterToolCall: [],
    prepareNextTurn: [],
    beforeStop: [],
  };
  raw.hooks?.before_tool_call?.forEach((rule, index) => {
    const path: Path = ["hooks", "before_tool_call", index];
    const match = matchOf(rule.match, [...path, "match"]);
    hooks.beforeToolCall.push({
      index,
      ...(match && { match }),
      ...(rule.block !== undefined && { block: rule.block }),
      ...(rule.run !== undefined && { run: command(rule.run, [...path, "run"]) }),
      timeoutMs:
        duration(rule.timeout, [...path, "timeout"], DEFAULT_HOOK_TIMEOUT_MS) ?? DEFAULT_HOOK_TIMEOUT_MS,
    });
  });
  raw.hooks?.after_tool_call?.forEach((rule, index) => {
    const path: Path = ["hooks", "after_tool_call", index];
    const match = matchOf(rule.match, [...path, "match"]);
    hooks.afterToolCall.push({
      index,
      ...(match && { match }),
      run: command(rule.run, [...path, "run"]),
      timeoutMs:
        duration(rule.timeout, [...path, "timeout"], DEFAULT_HOOK_TIMEOUT_MS) ?? DEFAULT_HOOK_TIMEOUT_MS,
    });
  });
  raw.hooks?.prepare_next_turn?.forEach((rule, index) => {
    const path: Path = ["hooks", "prepare_next_turn", index];
    const next = rule.model === undefined ? undefined : model(rule.model, { path: [...path, "model"] });
    hooks.prepareNextTurn.push({
      index,
      when: {
        ...(rule.when.turn_gte !== undefined && { turnGte: rule.when.turn_gte }),
        ...(rule.when.cost_gte_usd !== undefined && { costGteUsd: rule.when.cost_gte_usd }),
      },
      ...(next && { model: next }),
      ...(rule.thinking !== undefined && { thinking: rule.thinking }),
    });
  });
  raw.hooks?.before_stop?.forEach((rule, index) => {
    const path: Path = ["hooks", "before_stop", index];
    const run = command(rule.run, [...path, "run"]);
    if (run.parts.some((p) => typeof p !== "string")) {
      report({ path: [...path, "run"] }, "'tool.' templates are not available in before_stop commands", {
        expected: "{{ vars.NAME }} or {{ env.NAME }}",
      });
    }
    hooks.beforeStop.push({
      index,
      run,
      maxAttempts: rule.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
      timeoutMs:
        duration(rule.timeout, [...path, "timeout"], DEFAULT_HOOK_TIMEOUT_MS) ?? DEFAULT_HOOK_TIMEOUT_MS,
    });
  });

  raw.protect?.forEach((pattern, i) => {
    glob(pattern, ["protect", i], "path");
  });

  const limits: TaskSpec["limits"] = {};
  if (raw.limits?.max_turns !== undefined) limits.maxTurns = raw.limits.max_turns;
  if (raw.limits?.max_cost_usd !== undefined) limits.maxCostUsd = raw.limits.max_cost_usd;
  if (raw.limits?.max_tokens !== undefined) limits.maxTokens = raw.limits.max_tokens;
  const timeoutMs = duration(raw.limits?.timeout, ["limits", "timeout"]);
  if (timeoutMs !== undefined) limits.timeoutMs = timeoutMs;

  const caps = capsOf(raw.caps, (key, value) =>
    report({ path: ["caps", key] }, `bad size '${value}': less than one byte`, {
      expected: "a size like 32MiB or 1GiB",
    }),
  );

  if (problems.length > 0 || !resolvedModel) return { problems };
  return {
    problems,
    spec: {
      name: raw.name ?? defaultName,
      model: resolvedModel,
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
      caps,
      hooks,
      outputs: { dir: raw.outputs?.dir ?? DEFAULT_OUTPUT_DIR },
      review: {
        inline: raw.review?.inline ?? false,
        maxComments: raw.review?.max_comments ?? DEFAULT_REVIEW_MAX_COMMENTS,
      },
    },
  };
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
