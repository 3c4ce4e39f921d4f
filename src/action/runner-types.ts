/**
 * The part of the runner's API (`src/run/index.ts`) the action uses, as picks of the runner's own
 * types. The run's process (run-child.ts) loads the real one.
 */
import type { RunResult, RunTaskOptions } from "../run/index.ts";

export type RunConclusion = RunResult["conclusion"];

export type ActionRunResult = Pick<
  RunResult,
  "conclusion" | "exitCode" | "reason" | "outputs" | "changedFiles" | "costUsd" | "turns" | "summaryMarkdown"
> &
  Partial<Pick<RunResult, "patchHadSecret" | "review" | "result">>;

export type ActionRunOptions = Pick<
  RunTaskOptions,
  | "taskFile"
  | "cwd"
  | "vars"
  | "prompt"
  | "model"
  | "replay"
  | "resume"
  | "maxTurns"
  | "maxCostUsd"
  | "env"
  | "secretValues"
  | "signal"
  | "runUrl"
  | "onEvent"
  | "trusted"
  | "pullRequest"
>;

export interface ActionRunner {
  runTask(options: ActionRunOptions): Promise<ActionRunResult>;
}
