/**
 * Runs the task in the run's own process (start-run.ts): its environment is the step's without
 * any secret, the credentials it needs go over its IPC channel, and everything withheld seeds its
 * redactor (and this process's, over the relayed log, the progress snapshots and the reply).
 */
import path from "node:path";
import { createRedactor } from "../output/redact.ts";
import type { RunPullRequest } from "../run/pull-request.ts";
import type { EventContext } from "./event-context.ts";
import type { ActionInputs } from "./inputs.ts";
import { guardWorkflowCommands } from "./log-guard.ts";
import { readKeyEnvNames, splitRunEnvironment } from "./run-environment.ts";
import type { ProgressSnapshot, RunReply } from "./run-protocol.ts";
import type { StartRunOptions } from "./start-run.ts";

export interface RunPlan {
  inputs: ActionInputs;
  ctx: EventContext;
  taskFile: string | undefined;
  /** Overrides the spec's `workdir`; undefined lets the runner resolve it. */
  cwd: string | undefined;
  env: NodeJS.ProcessEnv;
  vars: Record<string, string>;
  trusted: boolean;
  pullRequest: RunPullRequest | undefined;
  /** Each progress snapshot, redacted; undefined: the run sends none. */
  onProgress: ((snapshot: ProgressSnapshot) => void) | undefined;
}

export interface ChildDeps {
  startRun: (options: StartRunOptions) => Promise<RunReply>;
  /** Where the runner's log goes. */
  write: (chunk: string) => void;
}

export async function runInChild(deps: ChildDeps, plan: RunPlan): Promise<RunReply> {
  const { inputs, ctx, taskFile } = plan;
  const split = splitRunEnvironment(plan.env, inputs, await readKeyEnvNames(taskFile));
  const redactor = createRedactor({ extra: [...split.secretValues, ...Object.values(split.secretEnv)] });
  // The log shows tool arguments and model text: none of it may act as a workflow command.
  const log = guardWorkflowCommands(deps.write);
  const errors = guardWorkflowCommands((chunk) => process.stderr.write(chunk));
  const onProgress = plan.onProgress;
  try {
    const reply = await deps.startRun({
      request: {
        type: "run",
        options: {
          taskFile,
          cwd: plan.cwd,
          prompt: inputs.prompt,
          model: inputs.model,
          vars: plan.vars,
          replay: inputs.replay === undefined ? undefined : path.resolve(ctx.workspace, inputs.replay),
          resume: inputs.resume === undefined ? undefined : path.resolve(ctx.workspace, inputs.resume),
          maxTurns: inputs.maxTurns,
          maxCostUsd: inputs.maxCostUsd,
          trusted: plan.trusted,
          runUrl: ctx.runUrl,
          ...(plan.pullRequest && { pullRequest: plan.pullRequest }),
        },
        secretEnv: split.secretEnv,
        secretValues: split.secretValues,
        progress: onProgress !== undefined,
      },
      env: split.processEnv,
      write: log.write,
      writeError: errors.write,
      redactor,
      ...(onProgress && { onProgress: (snapshot) => onProgress(redactor.redactDeep(snapshot)) }),
    });
    if (reply.type === "failure") return { type: "failure", failure: redactor.redactDeep(reply.failure) };
    // The paths of the outputs are the runner's own; everything else is text from the run.
    const { outputs, ...rest } = reply.result;
    return { type: "result", result: { ...redactor.redactDeep(rest), outputs } };
  } finally {
    log.flush();
    errors.flush();
  }
}
