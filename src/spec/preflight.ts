import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";
import { modelLabel } from "../core/format.ts";
import { priceFor } from "../providers/pricing.ts";
import { isSecretName } from "../system/env.ts";
import { readInputFile } from "../system/read-input-file.ts";
import { formatPath, type SpecProblem } from "./errors.ts";
import { MAX_SPEC_BYTES, parseSpecSource } from "./load-task.ts";
import { checkModels } from "./model-checks.ts";
import { positionAt, type SourceMap } from "./positions.ts";
import type { CommandTemplate, LoadedTask } from "./types.ts";
import { refusedWorkspace, WORKSPACE_ADVICE } from "./workspace-rule.ts";

export { describeTask } from "./describe-task.ts";

/** Shell words that are not programs on disk: nothing to check. */
const SHELL_WORDS = new Set(
  "if then else fi for while until do done case esac ! { } [ [[ test echo printf cd exit true false : source . export set unset eval exec command read time type local return shift trap wait let declare".split(
    " ",
  ),
);

export interface CheckTaskOptions {
  /** The workspace, when it is not the spec's workdir (`--cwd`). */
  workspace?: string;
  /** Where bare hook commands are looked up (PATH). Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Today, for deprecation dates. Default: the current time. */
  now?: Date;
  /** The task file as `loadTaskWithSource` parsed it; read and parsed again when absent. */
  source?: SourceMap;
}

/**
 * Pre-flight checks that need the disk, run by `agent-run validate` after the spec itself is valid.
 * Errors: the workspace is missing or no task's to own (workspace-rule.ts); a hook command given as a path does not exist or is not
 * executable. Warnings (traps that still run): a bare hook command not on PATH; a
 * before_tool_call script that can never block (no `exit 2`, no `"block"`); bash without a
 * timeout; a deny pattern an allow list makes unreachable; a hook rule matching only tools that
 * are not enabled; a secret-looking env var templated into the prompt; a deprecated or unknown
 * model, one of unknown price or context window (model-checks.ts); max_cost_usd with a model of
 * unknown price; no limit at all. Never throws for a problem it finds.
 */
export async function checkTask(
  task: LoadedTask,
  options: CheckTaskOptions = {},
): Promise<{ errors: SpecProblem[]; warnings: SpecProblem[] }> {
  const errors: SpecProblem[] = [];
  const warnings: SpecProblem[] = [];
  const { spec } = task;
  const map = options.source ?? (await sourceMapOf(task));
  const at = (fieldPath: PropertyKey[]) =>
    map
      ? { file: map.file, ...positionAt(map, fieldPath), path: formatPath(fieldPath) }
      : { file: task.file || "task", line: 0, column: 0, path: formatPath(fieldPath) };
  const env = options.env ?? process.env;
  const workspace = options.workspace ?? path.resolve(task.dir, spec.workdir);

  const info = await stat(workspace).catch(() => undefined);
  const refused = info?.isDirectory() ? await refusedWorkspace(workspace, env) : undefined;
  if (!info?.isDirectory()) {
    errors.push({
      ...at(["workdir"]),
      message: `workspace ${workspace} is not a directory`,
      expected: "an existing directory",
    });
  } else if (refused) {
    errors.push({
      ...at(["workdir"]),
      message: `workspace ${workspace} ${refused}`,
      expected: WORKSPACE_ADVICE,
    });
  }

  const commands: Array<{ hook: string; index: number; run: CommandTemplate }> = [
    ...spec.hooks.beforeToolCall.flatMap((r) =>
      r.run ? [{ hook: "before_tool_call", index: r.index, run: r.run }] : [],
    ),
    ...spec.hooks.afterToolCall.map((r) => ({ hook: "after_tool_call", index: r.index, run: r.run })),
    ...spec.hooks.beforeStop.map((r) => ({ hook: "before_stop", index: r.index, run: r.run })),
  ];
  for (const { hook, index, run } of commands) {
    const where = at(["hooks", hook, index, "run"]);
    const word = firstWord(run.text);
    if (!word || SHELL_WORDS.has(word) || word.includes("{{")) continue;
    if (word.includes("/")) {
      const file = path.resolve(workspace, word);
      if (!(await isExecutable(file))) {
        const exists = await stat(file).then(
          () => true,
          () => false,
        );
        errors.push({
          ...where,
          message: exists ? `hook command ${word} is not executable` : `hook command ${word} does not exist`,
          expected: exists ? `chmod +x ${word}` : `a file at ${file}`,
        });
        continue;
      }
      if (hook === "before_tool_call") {
        // A binary or a huge script is not read as a shell script.
        const read = await readInputFile(file, { maxBytes: 1024 * 1024 });
        const text = read.ok ? read.text : "";
        if (text && !/exit\s+2\b/.test(text) && !text.includes("block")) {
          warnings.push({ ...where, ...neverBlocks(word) });
        }
      }
    } else if (!(await onPath(word, env.PATH ?? ""))) {
      const local = path.join(workspace, "node_modules", ".bin", word);
      const suggestion = (await isExecutable(local)) ? `'npx ${word}'` : undefined;
      warnings.push({
        ...where,
        message: `hook command '${word}' is not on PATH here`,
        expected: "a program on the PATH the run will have",
        ...(suggestion && { suggestion }),
      });
    } else if (hook === "before_tool_call" && !/exit\s+2\b/.test(run.text) && !run.text.includes("block")) {
      warnings.push({ ...where, ...neverBlocks(word) });
    }
  }

  spec.tools.forEach((tool, index) => {
    const toolPath = ["tools", index];
    if (tool.name === "bash" && tool.options.timeoutMs === undefined) {
      warnings.push({
        ...at(toolPath),
        message: "bash has no timeout: commands get the tool's default, and the model may ask for longer",
        expected: "timeout: 120s (or what your commands need)",
      });
    }
    const { allow, deny } = tool.options;
    if (allow && deny) {
      deny.forEach((pattern, i) => {
        if (!allow.some((a) => prefixesOverlap(literalPrefix(a), literalPrefix(pattern)))) {
          warnings.push({
            ...at([...toolPath, "bash", "deny", i]),
            message: `deny '${pattern}' is redundant: the allow list already refuses every command it matches (it only makes the refusal's reason clearer)`,
          });
        }
      });
    }
  });

  // MCP tools are known once the servers run (`validate --mcp`); their servers were checked.
  const enabled = new Set<string>(spec.tools.map((t) => t.name));
  for (const [hook, rules] of [
    ["before_tool_call", spec.hooks.beforeToolCall],
    ["after_tool_call", spec.hooks.afterToolCall],
  ] as const) {
    for (const rule of rules) {
      const tools = rule.match?.tools;
      if (tools && !tools.some((t) => enabled.has(t) || t.startsWith("mcp__"))) {
        warnings.push({
          ...at(["hooks", hook, rule.index, "match", "tool"]),
          message: `this rule can never fire: ${tools.join(", ")} ${tools.length === 1 ? "is" : "are"} not in tools`,
        });
      }
    }
  }

  if (map) {
    for (const field of ["prompt", "system"] as const) {
      const raw = map.doc.get(field);
      if (typeof raw !== "string") continue;
      for (const [, name] of raw.matchAll(/\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)) {
        if (name && isSecretName(name)) {
          warnings.push({
            ...at([field]),
            message: `env.${name} looks like a secret: the model, the transcript and the outputs will see its value`,
          });
        }
      }
    }
  }

  warnings.push(...(await checkModels(spec, at, options.now ? { now: options.now } : {})));
  if (spec.limits.maxCostUsd !== undefined && !priceFor(spec.model)) {
    warnings.push({
      ...at(["limits", "max_cost_usd"]),
      message: `max_cost_usd cannot be enforced: no price is known for ${modelLabel(spec.model)}`,
      expected: "model.pricing: { input, output } in USD per million tokens",
    });
  }
  const { maxTurns, maxCostUsd, maxTokens, timeoutMs } = spec.limits;
  if ([maxTurns, maxCostUsd, maxTokens, timeoutMs].every((v) => v === undefined)) {
    warnings.push({
      ...at([]),
      message: "no limits: nothing but the model stops this run",
      expected: "limits: { max_turns, max_cost_usd, timeout }",
    });
  }
  return { errors, warnings };
}

function neverBlocks(word: string): Pick<SpecProblem, "message" | "expected"> {
  return {
    message: `before_tool_call hook ${word} can only allow or fail: it never exits 2 nor prints {"block": true}, so a refusal reads as a hook error`,
    expected: 'exit 2 with the reason on stderr, or {"block": true, "reason": "…"} on stdout',
  };
}

async function sourceMapOf(task: LoadedTask): Promise<SourceMap | undefined> {
  if (!task.file) return undefined;
  const read = await readInputFile(task.file, { maxBytes: MAX_SPEC_BYTES });
  if (!read.ok) return undefined;
  const { map } = parseSpecSource(read.text, path.relative(process.cwd(), task.file) || task.file);
  return map;
}

/** The program a command starts with, after `VAR=value` assignments; undefined for an empty one. */
export function firstWord(command: string): string | undefined {
  const words = command.trim().split(/\s+/);
  return words.find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const info = await stat(file);
    if (!info.isFile()) return false;
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function onPath(word: string, pathVariable: string): Promise<boolean> {
  for (const dir of pathVariable.split(path.delimiter)) {
    if (dir && (await isExecutable(path.join(dir, word)))) return true;
  }
  return false;
}

/** The text of a glob before its first wildcard. */
function literalPrefix(glob: string): string {
  const at = glob.search(/[*?[{]/);
  return at < 0 ? glob : glob.slice(0, at);
}

function prefixesOverlap(a: string, b: string): boolean {
  return a.startsWith(b) || b.startsWith(a);
}
