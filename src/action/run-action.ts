/**
 * The action: mask secrets, read inputs, skip what it caused itself (loop-guard.ts), check who
 * triggered it, skip a head commit already done (dedupe.ts), give the task the pull request's
 * commits and diff, run the task with the same runner as the CLI in a process of its own whose
 * environment holds no secret (run-in-child.ts) while the sticky comment shows its progress, then
 * write outputs and the step summary before anything else that talks to GitHub, so an API failure
 * never loses them; last, the sticky PR comment, the review and the failure annotation.
 */
import path from "node:path";
import * as core from "@actions/core";
import { errorText } from "../core/errors.ts";
import { runAnnotation } from "./annotations.ts";
import { type StickyComment, stickyComment } from "./comment.ts";
import { commentMarker } from "./comment-body.ts";
import { checkDedupe } from "./dedupe.ts";
import { readEventContext } from "./event-context.ts";
import { eventTarget } from "./event-target.ts";
import { eventVars } from "./event-vars.ts";
import type { ApiCallOptions, GitHubClient } from "./github-api.ts";
import { type ActionInputs, type InputReader, readActionInputs, SECRET_INPUTS } from "./inputs.ts";
import { checkLoopGuard, checkOwnMarker } from "./loop-guard.ts";
import { actionOutputs, skippedOutputs } from "./outputs.ts";
import { endedBody, progressBody } from "./progress-body.ts";
import { type ProgressComment, startProgressComment } from "./progress-comment.ts";
import { type PublishTarget, postComment } from "./publish-comment.ts";
import { postReview } from "./publish-review.ts";
import { pullRequestInfo } from "./pull-request-info.ts";
import { pullRequestRun } from "./pull-request-run.ts";
import { logInputs, reportFailure, reportSkipped, setOutputs, writeStepSummary } from "./report.ts";
import { runInChild } from "./run-in-child.ts";
import type { RunReply } from "./run-protocol.ts";
import type { RunState } from "./run-state.ts";
import { type StartRunOptions, startRun } from "./start-run.ts";
import { taskName } from "./task-name.ts";
import { passTrustGate } from "./trust-gate.ts";
import { sanitizeUntrustedText } from "./untrusted-text.ts";

const LOOP_TITLE = "agent-run skipped its own event";

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
  /**
   * The script the run's own process starts from (with RUN_CHILD_FLAG), for the default `startRun`.
   * Default: `process.argv[1]`, which is the entry when Node runs it; main.ts passes its own file,
   * since a tool that imports the entry (`@github/local-action`) is `process.argv[1]` then.
   */
  entry?: string;
}

/** Runs the action to completion. Never throws; sets `process.exitCode` (the runner's exit code). */
export async function run(deps: ActionDeps = {}): Promise<void> {
  const started = Date.now();
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
  const apiOptions = deps.apiOptions;
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

  const marked = checkOwnMarker(ctx.payload);
  if (marked.skip) return reportSkipped(marked.message, LOOP_TITLE);

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
    apiOptions,
    taskFile: givenTaskFile,
    agentDir,
  });
  if (!gate.run) {
    if (gate.kind === "skipped") return reportSkipped(gate.message, "agent-run refused the trigger");
    core.error(`agent-run: ${gate.message}`, { title: "agent-run refused to run" });
    setOutputs({ ...skippedOutputs(), conclusion: "error", "exit-code": "2" });
    await writeStepSummary(`## agent-run\n\n**refused** (exit 2), nothing was run: ${gate.message}\n`);
    process.exitCode = 2;
    return;
  }
  const loop = await checkLoopGuard({ ctx, client, ...(apiOptions && { apiOptions }) });
  if (loop.skip) return reportSkipped(loop.message, LOOP_TITLE);
  for (const note of gate.notes) core.info(`agent-run: ${note}`);
  for (const warning of gate.warnings) core.warning(`agent-run: ${warning}`);

  const taskFile = gate.taskFile;
  const name = await taskName(taskFile);
  logInputs(inputs, ctx, name);
  const marker = commentMarker(name);
  let sticky: StickyComment | undefined;
  const comment = async (): Promise<StickyComment | undefined> => {
    const github = target === undefined ? undefined : await client();
    if (github && target && sticky === undefined) {
      sticky = stickyComment(github, {
        owner: ctx.owner,
        repo: ctx.repo,
        issueNumber: target.issueNumber,
        marker,
      });
    }
    return sticky;
  };
  const failBeforeRun = async (message: string, exitCode: number) => {
    process.exitCode = await reportFailure({ message, exitCode }, { ctx, name, taskFile, givenTaskFile });
  };

  const prInfo = await pullRequestInfo(ctx, target, client, apiOptions);
  if (!prInfo.ok) return failBeforeRun(`agent-run: ${prInfo.message}; not running without the right diff`, 4);
  const pr = prInfo.value;
  const dedupe = await checkDedupe({
    pr,
    forceRerun: inputs.forceRerun,
    runAttempt: Number(env.GITHUB_RUN_ATTEMPT) || 1,
    comment: inputs.comment === "false" ? undefined : await comment(),
    marker,
    ...(apiOptions && { apiOptions }),
  });
  if (dedupe.skip) return reportSkipped(dedupe.message, "agent-run already ran on this commit");
  if (dedupe.note) core.info(`agent-run: ${dedupe.note}`);

  const vars: Record<string, string> = {
    ...eventVars(ctx.payload, (text) => sanitizeUntrustedText(text)),
    ...inputs.vars,
  };
  let prRun: Awaited<ReturnType<typeof pullRequestRun>> | undefined;
  if (pr) {
    prRun = await pullRequestRun({
      pr,
      taskFile,
      prompt: inputs.prompt,
      dir: gate.cwd ?? agentDir ?? ctx.workspace,
      tempDir: env.RUNNER_TEMP,
      token: inputs.githubToken,
      serverUrl: ctx.serverUrl,
    });
    if (!prRun.ok) return failBeforeRun(`agent-run: ${prRun.message}. Not running`, 4);
    if (prRun.pullRequest) core.info(`agent-run: ${prRun.note}`);
    else Object.assign(vars, prRun.vars);
  }
  const pullRequest = prRun?.ok ? prRun.pullRequest : undefined;

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

  const state = (fields: Pick<RunState, "status" | "conclusion">): RunState => ({
    ...fields,
    ...(pr && { head: pr.headSha }),
    event: ctx.eventName,
    ...(env.GITHUB_RUN_ID && { run: env.GITHUB_RUN_ID }),
    attempt: env.GITHUB_RUN_ATTEMPT || "1",
  });
  const hosts = [new URL(ctx.serverUrl).hostname];
  const bodyOptions = (status: RunState["status"], conclusion?: string) => ({
    taskName: name,
    runUrl: ctx.runUrl,
    elapsedMs: Date.now() - started,
    state: state({ status, ...(conclusion !== undefined && { conclusion }) }),
    hosts,
  });
  const stickyForProgress = inputs.progress && inputs.comment !== "false" ? await comment() : undefined;
  const progress: ProgressComment | undefined = stickyForProgress
    ? startProgressComment({
        comment: stickyForProgress,
        render: (snapshot) => progressBody(snapshot, bodyOptions("running")),
        intervalMs: inputs.progressIntervalMs,
        createIfMissing: inputs.comment === "true",
        ...(apiOptions && { apiOptions }),
        log: { info: (message) => core.info(message), warning: (message) => core.warning(message) },
      })
    : undefined;
  // From here on a cancelled job must not kill this process before the comment shows how the run
  // ended: the signals go to the run (start-run.ts forwards them), which ends as interrupted.
  const hold = () => {};
  process.on("SIGINT", hold);
  process.on("SIGTERM", hold);
  let ended = false;
  try {
    const reply = await runInChild(
      {
        startRun:
          deps.startRun ??
          ((options) => startRun(deps.entry === undefined ? options : { ...options, entry: deps.entry })),
        write: deps.write ?? ((chunk) => process.stdout.write(chunk)),
      },
      {
        inputs,
        ctx,
        taskFile,
        cwd: gate.cwd ?? (taskFile === undefined ? ctx.workspace : undefined),
        env,
        vars,
        trusted: gate.trusted,
        pullRequest,
        onProgress: progress ? (snapshot) => progress.update(snapshot) : undefined,
      },
    );
    await progress?.stop();
    if (reply.type === "failure") {
      if (progress?.shown) {
        const body = endedBody(reply.failure, bodyOptions("done", "error"));
        const outcome = await stickyForProgress?.write(body, apiOptions);
        if (outcome && !outcome.ok)
          core.warning(outcome.message, { title: "agent-run: PR comment not updated" });
      }
      ended = true;
      process.exitCode = await reportFailure(reply.failure, { ctx, name, taskFile, givenTaskFile });
      return;
    }
    const result = reply.result;

    const { "comment-url": _, "review-url": __, ...outputs } = actionOutputs(result);
    setOutputs(outputs);
    if (result.patchHadSecret) {
      core.warning(
        "agent-run: the patch held a secret value; it is withheld from the PR comment and the patch output",
        { title: "agent-run: patch withheld" },
      );
    }
    await writeStepSummary(result.summaryMarkdown);

    const publish: PublishTarget = {
      inputs,
      ctx,
      issueNumber: target?.issueNumber,
      name,
      comment,
      apiOptions,
    };
    const commentUrl = await postComment(
      publish,
      result,
      state({ status: "done", conclusion: result.conclusion }),
    );
    ended = true;
    core.setOutput("comment-url", commentUrl);

    let reviewUrl = "";
    const github = result.review && inputs.comment !== "false" ? await client() : undefined;
    if (result.review && !pr) {
      core.info("agent-run: the event has no pull request: the review comments stay in review.json");
    } else if (result.review && github && pr) {
      reviewUrl = await postReview(
        {
          github,
          owner: ctx.owner,
          repo: ctx.repo,
          pr,
          lines: pullRequest?.review.commentableLines,
          taskName: name,
          hosts,
          ...(apiOptions && { apiOptions }),
        },
        result.review,
      );
    }
    core.setOutput("review-url", reviewUrl);

    // Positions are looked up in the spec as checked out, which is where the annotation points.
    const annotation = await runAnnotation(result, givenTaskFile, ctx.workspace);
    if (annotation) core.error(annotation.message, annotation.properties);
    process.exitCode = result.exitCode;
  } finally {
    // Whatever happened here, a comment left showing progress gets a final state.
    if (!ended && progress?.shown) {
      await progress.stop();
      await stickyForProgress?.write(
        endedBody(
          { exitCode: 4, message: "the action failed before it could post the summary" },
          bodyOptions("done", "error"),
        ),
        apiOptions,
      );
    }
    // The run's end is reported: a stop signal from here on ends the process with the run's exit
    // code, not by the signal. A cancelled job's SIGTERM follows its SIGINT (7.5 s later on GitHub)
    // and, landing while the action wrote out its end, killed it: 143 by signal instead of 130.
    // Set before `hold` goes, so that no moment is left without a listener. No code yet: the action
    // failed before it knew the run's, 4 as its comment then says.
    const exitWithCode = () => process.exit(Number(process.exitCode ?? 4));
    process.once("SIGINT", exitWithCode);
    process.once("SIGTERM", exitWithCode);
    process.off("SIGINT", hold);
    process.off("SIGTERM", hold);
  }
}
