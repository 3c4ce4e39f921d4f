/**
 * The action: mask secrets, read inputs, check who triggered it, run the task with the same
 * runner as the CLI, then write outputs and the step summary before anything that talks to GitHub,
 * so an API failure never loses them; last, the sticky PR comment and the failure annotation.
 */
import path from "node:path";
import * as core from "@actions/core";
import { sanitizeUntrustedText } from "../run/untrusted-text.ts";
import { errorAnnotations, errorExitCode, runAnnotation } from "./annotations.ts";
import { agentEnvironment, type EventContext, readEventContext } from "./event-context.ts";
import { eventTarget } from "./event-target.ts";
import { eventVars } from "./event-vars.ts";
import type { ApiCallOptions, GitHubClient } from "./github-api.ts";
import { type ActionInputs, type InputReader, readActionInputs } from "./inputs.ts";
import { guardWorkflowCommands } from "./log-guard.ts";
import { actionOutputs, type OutputName, skippedOutputs } from "./outputs.ts";
import { postComment } from "./publish-comment.ts";
import type { ActionRunner, ActionRunResult } from "./runner-types.ts";
import { taskName } from "./task-name.ts";
import { passTrustGate } from "./trust-gate.ts";

export interface ActionDeps {
  /** Loaded only once the trigger is accepted, so the mask and refusals are logged at once. */
  loadRunner: () => Promise<ActionRunner>;
  /** Default: `core.getInput`. */
  getInput?: InputReader;
  /** Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Default: `getOctokit` from `@actions/github`. */
  createOctokit?: (token: string, baseUrl: string) => GitHubClient;
  apiOptions?: ApiCallOptions;
  /** Where the runner's log goes, in chunks that carry their own newlines. Default: stdout. */
  write?: (line: string) => void;
}

/** Runs the action to completion. Never throws; sets `process.exitCode` (the runner's exit code). */
export async function run(deps: ActionDeps): Promise<void> {
  const getInput = deps.getInput ?? ((name: string) => core.getInput(name));
  for (const name of ["anthropic-api-key", "openai-api-key", "github-token"]) {
    const secret = getInput(name).trim();
    if (secret !== "") core.setSecret(secret);
  }
  const env = deps.env ?? process.env;
  let inputs: ActionInputs;
  try {
    inputs = readActionInputs(getInput);
  } catch (error) {
    core.setFailed(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
    return;
  }
  const ctx = readEventContext(env);
  const target = eventTarget(ctx.eventName, ctx.payload);
  let octokit: GitHubClient | undefined;
  const client = async (): Promise<GitHubClient | undefined> => {
    if (octokit === undefined && inputs.githubToken) {
      // Octokit is most of the action's own code: load it only when a call to GitHub is due.
      let create = deps.createOctokit;
      if (create === undefined) {
        const { getOctokit } = await import("@actions/github");
        create = (token, baseUrl) => getOctokit(token, { baseUrl });
      }
      octokit = create(inputs.githubToken, ctx.apiUrl);
    }
    return octokit;
  };

  if (ctx.eventName === "pull_request_target" && target?.fromFork) {
    core.warning(
      "agent-run: pull_request_target on a fork's PR runs with this repository's secrets and a write token; " +
        "the agent must not act on the fork's code or text unreviewed (see docs/action.md, Security model)",
    );
  }

  const givenTaskFile = inputs.task === undefined ? undefined : path.resolve(ctx.workspace, inputs.task);
  // Without the input, the spec's `workdir` decides (resolved by the runner, or by the gate for a
  // trusted copy, against the checkout's spec folder); an inline prompt runs in the workspace.
  const agentDir =
    inputs.workingDirectory === undefined ? undefined : path.resolve(ctx.workspace, inputs.workingDirectory);
  const gate = await passTrustGate({
    inputs,
    ctx,
    target,
    env,
    client,
    apiOptions: deps.apiOptions,
    taskFile: givenTaskFile,
    agentDir,
  });
  if (!gate.run) {
    if (gate.kind === "skipped") {
      core.notice(`agent-run: ${gate.message}`, { title: "agent-run refused the trigger" });
      setOutputs(skippedOutputs());
      return;
    }
    core.error(`agent-run: ${gate.message}`, { title: "agent-run refused to run" });
    setOutputs({ ...skippedOutputs(), conclusion: "error", "exit-code": "2" });
    await writeStepSummary(`## agent-run\n\n**refused** (exit 2), nothing was run: ${gate.message}\n`);
    process.exitCode = 2;
    return;
  }
  for (const note of gate.notes) core.info(`agent-run: ${note}`);
  for (const warning of gate.warnings) core.warning(`agent-run: ${warning}`);

  const taskFile = gate.taskFile;
  const name = await taskName(taskFile);
  logInputs(inputs, ctx, name);
  if (process.platform === "linux" && env.GITHUB_ACTIONS === "true") {
    const prereqs = await import("./sandbox-prereqs.ts");
    const notes = await prereqs.prepareSandboxPrereqs({
      env,
      platform: process.platform,
      sandboxMode: await prereqs.readSandboxMode(taskFile),
      ops: prereqs.realPrereqOps(env),
    });
    for (const note of notes) {
      if (note.level === "info") core.info(`agent-run: ${note.message}`);
      else core.warning(`agent-run: ${note.message}`, { title: "agent-run: sandbox set-up" });
    }
  }

  let result: ActionRunResult;
  try {
    const runner = await deps.loadRunner();
    const vars = { ...eventVars(ctx.payload, (text) => sanitizeUntrustedText(text)), ...inputs.vars };
    result = await runWithSignals(
      runner,
      {
        inputs,
        ctx,
        taskFile,
        cwd: gate.cwd ?? (taskFile === undefined ? ctx.workspace : undefined),
        env,
        vars,
        trusted: gate.trusted,
      },
      deps.write,
    );
  } catch (error) {
    const annotations = errorAnnotations(error, ctx.workspace);
    for (const annotation of annotations) {
      // A spec run from the trusted commit's temp copy is still annotated at the path the user knows.
      if (taskFile !== givenTaskFile && taskFile && givenTaskFile && annotation.properties.file) {
        const temp = path.relative(ctx.workspace, taskFile).split(path.sep).join("/");
        if (annotation.properties.file === temp) {
          annotation.properties.file = path.relative(ctx.workspace, givenTaskFile).split(path.sep).join("/");
        }
      }
      core.error(annotation.message, annotation.properties);
    }
    const code = errorExitCode(error);
    setOutputs({ ...skippedOutputs(), conclusion: "error", "exit-code": String(code) });
    const lines = annotations.map((a) => `- ${a.message}`).join("\n");
    await writeStepSummary(
      `## agent-run: ${name}\n\n**error** (exit ${code}), nothing was run:\n\n${lines}\n`,
    );
    process.exitCode = code;
    return;
  }

  const { "comment-url": _, ...outputs } = actionOutputs(result);
  setOutputs(outputs);
  if (result.patchHadSecret) {
    core.warning(
      "agent-run: the patch held a secret value; it is withheld from the PR comment and the patch output",
      {
        title: "agent-run: patch withheld",
      },
    );
  }
  await writeStepSummary(result.summaryMarkdown);

  let commentUrl = "";
  try {
    commentUrl = await postComment(inputs, ctx, target?.issueNumber, result, name, client, deps.apiOptions);
  } catch (error) {
    core.warning(
      `agent-run: the PR comment failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  core.setOutput("comment-url", commentUrl);

  // Positions are looked up in the spec as checked out, which is where the annotation points.
  const annotation = await runAnnotation(result, givenTaskFile, ctx.workspace);
  if (annotation) core.error(annotation.message, annotation.properties);
  process.exitCode = result.exitCode;
}

interface RunPlan {
  inputs: ActionInputs;
  ctx: EventContext;
  taskFile: string | undefined;
  /** Overrides the spec's `workdir`; undefined lets the runner resolve it. */
  cwd: string | undefined;
  env: NodeJS.ProcessEnv;
  vars: Record<string, string>;
  trusted: boolean;
}

async function runWithSignals(
  runner: ActionRunner,
  plan: RunPlan,
  write: ((line: string) => void) | undefined,
): Promise<ActionRunResult> {
  const { inputs, ctx, taskFile, env } = plan;
  // A cancelled job gets SIGINT, then SIGTERM: end the run so its outputs are still written.
  const controller = new AbortController();
  // The runner maps the reason "SIGINT" / "SIGTERM" to exit 130 / 143.
  const abort = (signal: NodeJS.Signals) => controller.abort(signal);
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  // The log shows tool arguments and model text: none of it may act as a workflow command.
  const log = guardWorkflowCommands(write ?? ((chunk) => process.stdout.write(chunk)));
  try {
    return await runner.runTask({
      taskFile,
      cwd: plan.cwd,
      prompt: inputs.prompt,
      model: inputs.model,
      vars: plan.vars,
      replay: inputs.replay === undefined ? undefined : path.resolve(ctx.workspace, inputs.replay),
      maxTurns: inputs.maxTurns,
      maxCostUsd: inputs.maxCostUsd,
      env: agentEnvironment(env, inputs),
      signal: controller.signal,
      trusted: plan.trusted,
      runUrl: ctx.runUrl,
      onEvent: runner.createGithubRenderer(log.write),
    });
  } finally {
    log.flush();
    process.off("SIGINT", abort);
    process.off("SIGTERM", abort);
  }
}

function setOutputs(outputs: Partial<Record<OutputName, string>>): void {
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
}

async function writeStepSummary(markdown: string): Promise<void> {
  try {
    await core.summary.addRaw(markdown, true).write();
  } catch (error) {
    core.warning(
      `agent-run: step summary not written: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function logInputs(inputs: ActionInputs, ctx: EventContext, name: string): void {
  core.startGroup(`agent-run: ${name}`);
  core.info(`task: ${inputs.task ?? "(inline prompt)"}`);
  if (inputs.model) core.info(`model: ${inputs.model}`);
  const spec = inputs.task === undefined ? "." : "(the spec's workdir)";
  core.info(`working-directory: ${inputs.workingDirectory ?? spec}`);
  core.info(`comment: ${inputs.comment} · event: ${ctx.eventName || "(none)"}`);
  if (inputs.maxTurns !== undefined) core.info(`max-turns: ${inputs.maxTurns}`);
  if (inputs.maxCostUsd !== undefined) core.info(`max-cost: ${inputs.maxCostUsd} USD`);
  if (inputs.replay) core.info(`replay: ${inputs.replay}`);
  core.endGroup();
}
