import { stat } from "node:fs/promises";
import path from "node:path";
import { EXIT, isAgentRunError } from "../core/errors.ts";
import { loadReplayFile } from "../providers/replay-format.ts";
import { checkReplayToolCalls } from "../run/replay-check.ts";
import { offeredToolSchemas } from "../run/replay-tools.ts";
import {
  checkTask,
  describeTask,
  formatSpecProblems,
  type LoadedTask,
  loadTaskWithSource,
  SpecError,
  type SpecProblem,
} from "../spec/index.ts";
import type { TaskOverrides } from "./args.ts";

export interface ValidateOptions extends TaskOverrides {
  taskFile: string;
  vars: Record<string, string>;
  /** Also start the task's MCP servers and list their tools. */
  mcp?: boolean;
}

/**
 * `agent-run validate`: parse, check and describe a task without calling a model, with the flags
 * a run would be given applied the way the run applies them (`--model`, `--prompt`, `--var`,
 * `--cwd`, `--out`, `--replay`, the limits), so what it calls valid is what would run. With `mcp`,
 * it also starts the task's MCP servers as a run would and lists their tools.
 */
export async function validateCommand(options: ValidateOptions): Promise<number> {
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
  try {
    const { task: loaded, source } = await loadTaskWithSource(options.taskFile, {
      vars: options.vars,
      env: process.env,
      ...(options.prompt !== undefined && { promptOverride: options.prompt }),
      ...(options.model !== undefined && { modelOverride: options.model }),
    });
    const task = withLimits(loaded, options);
    const workspace = options.cwd === undefined ? undefined : path.resolve(options.cwd);
    if (workspace !== undefined && !(await stat(workspace).catch(() => undefined))?.isDirectory()) {
      process.stderr.write(
        `--cwd: workspace ${workspace} is not a directory (expected an existing directory)\n`,
      );
      return EXIT.usage;
    }
    const replay = options.replay === undefined ? undefined : await loadReplayFile(options.replay);
    if (replay) checkReplayToolCalls(replay, offeredToolSchemas(task.spec));
    const checked = await checkTask(task, {
      source,
      ...(workspace !== undefined && { workspace }),
    });
    // The checks place what they find about the model at the file's model; --model replaced it.
    const onFlag = (problem: SpecProblem): SpecProblem =>
      options.model !== undefined && /^model(\.|$)/.test(problem.path)
        ? { ...problem, file: "--model", line: 0, column: 0, path: "" }
        : problem;
    const errors = checked.errors.map(onFlag);
    const warnings = checked.warnings.map(onFlag);
    const outDir = options.out === undefined ? undefined : path.resolve(options.out);
    let description = describeTask(task, {
      ...(workspace !== undefined && { workspace }),
      ...(outDir !== undefined && { outDir }),
    });
    if (replay) {
      const turns = replay.turns.length;
      description += `\nreplay     ${options.replay}  (${turns} turn${turns === 1 ? "" : "s"}; no model is called)`;
    }
    process.stdout.write(`${description}\n`);
    if (options.mcp && errors.length === 0) {
      // Started as a run would start them; one that cannot start is the run's exit 2 too.
      const { listMcpTools } = await import("../run/mcp-list.ts");
      process.stdout.write(`${await listMcpTools(task, workspace !== undefined ? { workspace } : {})}\n`);
    }
    if (warnings.length > 0)
      process.stdout.write(`\nwarnings:\n${formatSpecProblems(warnings, { color })}\n`);
    if (errors.length > 0) {
      process.stderr.write(`${formatSpecProblems(errors, { color })}\n`);
      return EXIT.usage;
    }
    process.stdout.write(`\n${task.file}: valid\n`);
    return EXIT.success;
  } catch (error) {
    if (error instanceof SpecError) {
      process.stderr.write(`${formatSpecProblems(error.problems, { color })}\n`);
      return EXIT.usage;
    }
    if (isAgentRunError(error) && error.kind === "usage") {
      process.stderr.write(`agent-run: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

/** The task with `--max-turns`, `--max-cost` and `--timeout` in place of the spec's limits. */
function withLimits(task: LoadedTask, options: TaskOverrides): LoadedTask {
  const { maxTurns, maxCostUsd, timeoutMs } = options;
  if (maxTurns === undefined && maxCostUsd === undefined && timeoutMs === undefined) return task;
  const limits = {
    ...task.spec.limits,
    ...(maxTurns !== undefined && { maxTurns }),
    ...(maxCostUsd !== undefined && { maxCostUsd }),
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
  return { ...task, spec: { ...task.spec, limits } };
}
