import { statSync } from "node:fs";
import path from "node:path";
import type { AnyAgentTool } from "../core/types.ts";
import type { LoadedTask, ToolSpec } from "../spec/index.ts";
import {
  type BashOperations,
  type BashPrepare,
  createBashTool,
  createEditTool,
  createFindTool,
  createGrepTool,
  createLsTool,
  createReadTool,
  createWriteTool,
  type FileOperations,
  type OutputGuard,
} from "../tools/index.ts";

/**
 * Paths the agent may never change, whatever the spec says: git internals (a `.git` folder, or the
 * `.git` file of a worktree or submodule, nested ones included) and CI definitions.
 */
export const ALWAYS_PROTECTED = [".git", ".git/**", "**/.git", "**/.git/**", ".github/workflows/**"];

/** Programs whose first argument is the script a hook runs (`bash ci/guard.sh`). */
const INTERPRETERS = new Set([
  "bash",
  "sh",
  "zsh",
  "node",
  "python",
  "python3",
  "ruby",
  "perl",
  "deno",
  "bun",
  "tsx",
]);

/**
 * The protected globs of a run, relative to the workspace: the fixed ones, the task file, the
 * files its hook commands name (`./ci/guard.sh`, `STRICT=1 ci/guard.sh`, `bash guard.sh`)
 * and the outputs dir (when they lie inside the workspace), plus `extra` (the spec's `protect` and
 * the tool's own). Every glob also comes in a case-insensitive form, so `.GIT/hooks/x` cannot
 * reach `.git` on a case-insensitive file system.
 */
export function protectedPaths(
  task: LoadedTask,
  workspace: string,
  outDir: string,
  extra: string[] = [],
): string[] {
  const inside = (absolute: string): string | undefined => {
    const rel = path.relative(workspace, absolute);
    return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel.split(path.sep).join("/") : undefined;
  };
  const globs = new Set([...ALWAYS_PROTECTED, ...extra]);
  const add = (absolute: string | undefined, dir = false) => {
    const rel = absolute && inside(absolute);
    if (rel) globs.add(dir ? `${rel}/**` : rel);
  };
  if (task.file) add(task.file);
  add(outDir, true);
  const { hooks } = task.spec;
  for (const rule of [...hooks.beforeToolCall, ...hooks.afterToolCall, ...hooks.beforeStop]) {
    // The program a hook runs is code the agent must not rewrite: a path (`./ci/guard.sh`, also
    // after `STRICT=1`) or the script after an interpreter (`bash guard.sh`). Its arguments are
    // not: `eslint --fix src/a.js` must leave src/a.js editable.
    const [program, script] = hookCommandWords(rule.run?.text ?? "");
    if (program?.includes("/")) add(path.resolve(workspace, program));
    if (
      program &&
      script &&
      INTERPRETERS.has(path.basename(program)) &&
      isFile(path.resolve(workspace, script))
    ) {
      add(path.resolve(workspace, script));
    }
  }
  for (const glob of [...globs]) globs.add(caseInsensitiveGlob(glob));
  return [...globs];
}

/** `.git/**` → `.[gG][iI][tT]/**`: letters become both-case classes, the rest is kept. */
export function caseInsensitiveGlob(glob: string): string {
  let out = "";
  let inClass = false;
  for (const char of glob) {
    if (char === "[") inClass = true;
    if (char === "]") inClass = false;
    const lower = char.toLowerCase();
    const upper = char.toUpperCase();
    out += !inClass && lower !== upper ? `[${lower}${upper}]` : char;
  }
  return out;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The protected globs `spec`'s tool checks: edit's and write's (the spec's `protect` and the
 * tool's own), bash's (the spec's: its policy checks the files a command writes); none for the rest.
 */
function toolProtectedPaths(spec: ToolSpec, task: LoadedTask, workspace: string, outDir: string): string[] {
  switch (spec.name) {
    case "bash":
      return protectedPaths(task, workspace, outDir, task.spec.protect);
    case "edit":
    case "write":
      return protectedPaths(task, workspace, outDir, [...task.spec.protect, ...(spec.options.protect ?? [])]);
    default:
      return [];
  }
}

/**
 * Every protected glob the run's tools will check (bash's only when its policy judges commands):
 * what the run compiles ahead of the first tool call (see `compileProtectedPaths`).
 */
export function protectedPathsOfRun(task: LoadedTask, workspace: string, outDir: string): string[] {
  const globs = new Set<string>();
  for (const spec of task.spec.tools) {
    if (spec.name === "bash" && !spec.options.allow && !spec.options.deny) continue;
    for (const glob of toolProtectedPaths(spec, task, workspace, outDir)) globs.add(glob);
  }
  return [...globs];
}

/** The folder of the outputs dir that holds the bash tool's full outputs: `tool-output`. */
export const TOOL_OUTPUT_DIR = "tool-output";

/** What the runner adds to the spec's tools. */
export interface BuildToolsOptions {
  /**
   * The bash tool's `prepare` (the sandbox); its `run`, when set, becomes the tool's
   * `operations.run` (the run's sandbox session, see sandbox-setup.ts).
   */
  bashPrepare?: BashPrepare & { run?: BashOperations["run"] };
  /** Bounds the bash tool's saved outputs (`caps.command_output`, `caps.saved_outputs`): the run's. */
  outputGuard?: OutputGuard;
  /** Told a bash command's saved output file that will be kept, as soon as the command ended. */
  onOutputKept?: (file: string) => void;
  /**
   * The file tools' operations (the run's sandbox session, see sandbox-setup.ts). Default: each
   * tool's own, race-safe in the runner's process.
   */
  fileOperations?: FileOperations;
}

/** The spec's tools, confined to the workspace, with their options applied. */
export function buildTools(
  task: LoadedTask,
  workspace: string,
  outDir: string,
  env: NodeJS.ProcessEnv,
  options: BuildToolsOptions = {},
): AnyAgentTool[] {
  return task.spec.tools.map((spec) => buildTool(spec, task, workspace, outDir, env, options));
}

function buildTool(
  spec: ToolSpec,
  task: LoadedTask,
  workspace: string,
  outDir: string,
  env: NodeJS.ProcessEnv,
  options: BuildToolsOptions,
): AnyAgentTool {
  const o = spec.options;
  const bounds = {
    ...(o.maxOutputLines !== undefined && { maxLines: o.maxOutputLines }),
    ...(o.maxOutputBytes !== undefined && { maxBytes: o.maxOutputBytes }),
  };
  const files = options.fileOperations && { operations: options.fileOperations };
  switch (spec.name) {
    case "bash":
      return createBashTool(workspace, {
        ...bounds,
        env,
        // The full output of a cut command lands in the outputs dir: inside the workspace by default,
        // so the read tool can open it (outDir is protected for write and edit only), yet out of the
        // patch. The child writes it through an inherited descriptor, so a sandbox's read-only view of
        // outDir does not matter, and bash inside the sandbox sees it where the read tool does.
        spillDir: path.join(outDir, TOOL_OUTPUT_DIR),
        ...(o.allow && { allow: o.allow }),
        ...(o.deny && { deny: o.deny }),
        protectedPaths: toolProtectedPaths(spec, task, workspace, outDir),
        ...(o.timeoutMs !== undefined && { timeoutMs: o.timeoutMs }),
        ...(o.env && { passThroughEnv: o.env }),
        ...(options.bashPrepare && { prepare: options.bashPrepare }),
        ...(options.bashPrepare?.run && { operations: { run: options.bashPrepare.run } }),
        ...(options.outputGuard && { outputGuard: options.outputGuard }),
        ...(options.onOutputKept && { onOutputKept: options.onOutputKept }),
      });
    case "read":
      return createReadTool(workspace, { ...bounds, ...files });
    case "write":
      return createWriteTool(workspace, {
        protectedPaths: toolProtectedPaths(spec, task, workspace, outDir),
        ...files,
      });
    case "edit":
      return createEditTool(workspace, {
        protectedPaths: toolProtectedPaths(spec, task, workspace, outDir),
        ...files,
      });
    case "grep":
      return createGrepTool(workspace, { ...bounds, ...files });
    case "find":
      return createFindTool(workspace, { ...bounds, ...files });
    case "ls":
      return createLsTool(workspace, { ...bounds, ...files });
  }
}

/** A hook command's words without leading `VAR=value` assignments, quotes stripped. */
function hookCommandWords(command: string): string[] {
  const words = command
    .trim()
    .split(/\s+/)
    .map((word) => word.replace(/^['"]|['"]$/g, ""));
  const first = words.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  return first < 0 ? [] : words.slice(first);
}
