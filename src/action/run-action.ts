/**
 * The action: mask secrets, read inputs, check who triggered it, run the task with the same
 * runner as the CLI in a process of its own whose environment holds no secret (start-run.ts),
 * then write outputs and the step summary before anything that talks to GitHub, so an API failure
 * never loses them; last, the sticky PR comment and the failure annotation.
 */
import path from "node:path";
import * as core from "@actions/core";
import { errorText } from "../core/errors.ts";
import { createRedactor } from "../output/redact.ts";
import { errorAnnotations, runAnnotation } from "./annotations.ts";
import { type EventContext, readEventContext } from "./event-context.ts";
import { eventTarget } from "./event-target.ts";
import { eventVars } from "./event-vars.ts";
import type { ApiCallOptions, GitHubClient } from "./github-api.ts";
import { type ActionInputs, type InputReader, readActionInputs, SECRET_INPUTS } from "./inputs.ts";
import { guardWorkflowCommands } from "./log-guard.ts";
import { actionOutputs, type OutputName, skippedOutputs } from "./outputs.ts";
import { postComment } from "./publish-comment.ts";
import { readKeyEnvNames, splitRunEnvironment } from "./run-environment.ts";
import type { RunFailure, RunReply } from "./run-protocol.ts";
import { type StartRunOptions, startRun } from "./start-run.ts";
import { taskName } from "./task-name.ts";
import { passTrustGate } from "./trust-gate.ts";
import { sanitizeUntrustedText } from "./untrusted-text.ts";

export interface ActionDeps {
  /** Starts the run's own process. Default: `startRun` (the same Node and entry, with RUN_CHILD_FLAG). */
  startRun?: (options: StartRunOptions) => Promise<RunReply>;
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
export async function run(deps: ActionDeps = {}): Promise<void> {
  const getInput = deps.getInput ?? ((name: string) => core.getInput(name));
  for (const name of SECRET_INPUTS) {
    const secret = getInput(name).trim();
    if (secret !== "") core.setSecret(secret);
  }
  const env = deps.env ?? process.env;
  let inputs: ActionInputs;
  try {
    inputs = readActionInputs(getInput);
  } catch (error) {
    core.setFailed(errorText(error));
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

  const reply = await runInChild(deps, {
    inputs,
    ctx,
    taskFile,
    cwd: gate.cwd ?? (taskFile === undefined ? ctx.workspace : undefined),
    env,
    vars: { ...eventVars(ctx.payload, (text) => sanitizeUntrustedText(text)), ...inputs.vars },
    trusted: gate.trusted,
  });
  if (reply.type === "failure") {
    const code = await reportFailure(reply.failure, { ctx, name, taskFile, givenTaskFile });
    process.exitCode = code;
    return;
  }
  const result = reply.result;

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
    core.warning(`agent-run: the PR comment failed: ${errorText(error)}`);
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

/**
 * Runs the task in the run's own process: its environment is the step's without any secret, the
 * credentials it needs go over its IPC channel, and everything withheld seeds its redactor (and
 * this process's, over the relayed log and the reply).
 */
async function runInChild(deps: ActionDeps, plan: RunPlan): Promise<RunReply> {
  const { inputs, ctx, taskFile } = plan;
  const split = splitRunEnvironment(plan.env, inputs, await readKeyEnvNames(taskFile));
  const redactor = createRedactor({ extra: [...split.secretValues, ...Object.values(split.secretEnv)] });
  // The log shows tool arguments and model text: none of it may act as a workflow command.
  const log = guardWorkflowCommands(deps.write ?? ((chunk) => process.stdout.write(chunk)));
  const errors = guardWorkflowCommands((chunk) => process.stderr.write(chunk));
  try {
    const reply = await (deps.startRun ?? startRun)({
      request: {
        type: "run",
        options: {
          taskFile,
          cwd: plan.cwd,
          prompt: inputs.prompt,
          model: inputs.model,
          vars: plan.vars,
          replay: inputs.replay === undefined ? undefined : path.resolve(ctx.workspace, inputs.replay),
          maxTurns: inputs.maxTurns,
          maxCostUsd: inputs.maxCostUsd,
          trusted: plan.trusted,
          runUrl: ctx.runUrl,
        },
        secretEnv: split.secretEnv,
        secretValues: split.secretValues,
      },
      env: split.processEnv,
      write: log.write,
      writeError: errors.write,
      redact: redactor.redact,
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

/** An error before the run started: annotations at the spec's positions, outputs, step summary. Returns the exit code. */
async function reportFailure(
  failure: RunFailure,
  where: { ctx: EventContext; name: string; taskFile: string | undefined; givenTaskFile: string | undefined },
): Promise<number> {
  const { ctx, taskFile, givenTaskFile } = where;
  const error = Object.assign(new Error(failure.message), {
    ...(failure.shortMessage !== undefined && { shortMessage: failure.shortMessage }),
    ...(failure.location !== undefined && { location: failure.location }),
    ...(failure.problems !== undefined && { problems: failure.problems }),
  });
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
  const code = failure.exitCode;
  setOutputs({ ...skippedOutputs(), conclusion: "error", "exit-code": String(code) });
  const lines = annotations.map((a) => `- ${a.message}`).join("\n");
  await writeStepSummary(
    `## agent-run: ${where.name}\n\n**error** (exit ${code}), nothing was run:\n\n${lines}\n`,
  );
  return code;
}

function setOutputs(outputs: Partial<Record<OutputName, string>>): void {
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
}

async function writeStepSummary(markdown: string): Promise<void> {
  try {
    await core.summary.addRaw(markdown, true).write();
  } catch (error) {
    core.warning(`agent-run: step summary not written: ${errorText(error)}`);
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
