import { randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { errorText } from "../core/errors.ts";
import type { StreamFunction } from "../core/provider.ts";
import type { AnyAgentTool, Model } from "../core/types.ts";
import {
  createEventsWriter,
  createRedactor,
  disposeSnapshot,
  OUTPUT_FILES,
  snapshotWorkspace,
} from "../output/index.ts";
import {
  createProviderRouter,
  createRecorder,
  loadModelCatalog,
  loadReplayFile,
} from "../providers/index.ts";
import { type LoadedTask, loadTask, parseInlineTask } from "../spec/index.ts";
import { modelRunNotes } from "../spec/model-checks.ts";
import { protectedPaths, TOOL_OUTPUT_DIR } from "./build-tools.ts";
import { checkOutputPaths, checkWorkspace } from "./check-run-paths.ts";
import { compactEvent } from "./compact-event.ts";
import { createGiveUpTool } from "./give-up-tool.ts";
import { startTaskMcpServers } from "./mcp-setup.ts";
import { createMessageRedactions } from "./message-redactions.ts";
import { placePullRequestDiff, pullRequestVars } from "./pull-request.ts";
import { RecordCollector } from "./record.ts";
import { redactRequests } from "./redact-requests.ts";
import { checkReplayToolCalls } from "./replay-check.ts";
import { offeredToolSchemas } from "./replay-tools.ts";
import { prepareResume, type ResumePlan } from "./resume/prepare-resume.ts";
import { TRANSCRIPT_FILE } from "./resume/transcript-file.ts";
import { createReviewCollector, REVIEW_FILE } from "./review-tool.ts";
import type { RunContext } from "./run-context.ts";
import { agentEnv, probeSandboxEarly, type RunSandbox, setupSandbox } from "./sandbox-setup.ts";
import { createSavedOutputLooks } from "./saved-output-looks.ts";
import { type RunEvent, RunSetupError, type RunTaskOptions } from "./types.ts";

/**
 * The prepare phase: everything that can be found wrong before anything runs. A bad spec, a
 * missing API key, a bad replay file, a missing or refused workspace, an outputs dir or record
 * file that cannot be written (check-run-paths.ts), a resume that cannot be done or a required
 * sandbox that cannot start throw an `AgentRunError` of kind `usage` (exit 2) and leave nothing
 * behind but what they clean up themselves. On return the events file is open and the run's timer
 * is running.
 */
export async function prepareRun(options: RunTaskOptions): Promise<RunContext> {
  const env = options.env ?? process.env;
  const started = Date.now();
  const pr = options.pullRequest;
  // The diff's path is known once the outputs dir is (below); until then it is "".
  let task = await loadTaskFor(options, env, pr && pullRequestVars(pr, ""));
  let spec = task.spec;
  probeSandboxEarly(spec, env);

  // Configuration problems (a missing API key, a bad replay file) are usage errors: found here,
  // before anything is written, they throw ProviderConfigError and the CLI exits 2.
  // A replayed call the tools would refuse is the file's mistake: all of them now, with positions.
  const replay = options.replay ? await loadReplayFile(options.replay) : undefined;
  if (replay) checkReplayToolCalls(replay, offeredToolSchemas(spec));
  let stream: StreamFunction = createProviderRouter({
    env,
    // The spec's model's SDK loads while the rest is set up (preload).
    ...(replay ? { replay } : { models: taskModels(task), preload: true }),
  });
  // A schema that does not compile is exit 2 before anything is touched; ajv loads only for it.
  const ctxHolder: { ctx?: RunContext } = {};
  const result = spec.outputSchema
    ? (await import("./submit-result-tool.ts")).createStructuredResult(
        spec.outputSchema,
        () => ctxHolder.ctx?.stopChecks,
      )
    : undefined;
  const workspace = path.resolve(options.cwd ?? path.resolve(task.dir, spec.workdir));
  const outDir = options.outDir ? path.resolve(options.outDir) : path.resolve(workspace, spec.outputs.dir);
  // The workspace snapshot (a chain of short git commands, on the way to the first tool) starts
  // once the workspace is known to be one, before the outputs' checks, and runs while the sandbox
  // is set up: the set-up writes nothing git would see (empty mount points at most), the outputs
  // dir and the record file are left out, and a refused output path ends it. Awaited by whatever
  // may change a file; a failure then ends the run as before.
  await checkWorkspace(workspace, env);
  const stopSnapshot = new AbortController();
  const snapshotting = snapshotWorkspace(workspace, {
    exclude: [outDir, ...(options.record ? [path.resolve(options.record)] : [])],
    signal: stopSnapshot.signal,
  });
  snapshotting.catch(() => {});
  // A prepare phase that fails needs no snapshot: one being taken is stopped.
  const dropSnapshot = () => {
    stopSnapshot.abort();
    return snapshotting.then(disposeSnapshot, () => {});
  };
  const paths = await checkOutputPaths({ workspace, outDir, record: options.record }).catch(
    async (error: unknown) => {
      await dropSnapshot();
      throw error;
    },
  );
  const undoPaths = async () => {
    await dropSnapshot();
    await paths.undo();
  };
  if (pr) {
    const diffPath = await placePullRequestDiff(pr, outDir).catch(async (error: unknown) => {
      await undoPaths();
      throw new RunSetupError(
        "outputs_dir_invalid",
        `the pull request's diff could not be written to ${outDir}: ${errorText(error)}`,
        { cause: error },
      );
    });
    // Templated again with the diff's path; workdir and outputs dir take no variables.
    task = await loadTaskFor(options, env, pullRequestVars(pr, diffPath));
    spec = task.spec;
  }
  const recorder = options.record ? createRecorder(stream, options.record) : undefined;
  if (recorder) stream = recorder;

  // A resume that cannot be done is refused here: nothing is changed, the outputs folder the
  // check above made is removed again.
  let resume: ResumePlan | undefined;
  try {
    resume = options.resume ? await prepareResume(options.resume, workspace, spec.model) : undefined;
  } catch (error) {
    await undoPaths();
    throw error;
  }

  // A sandbox that is required but cannot start is a set-up error (exit 2) found before anything
  // is written; see sandbox-setup.ts.
  let warn: (message: string) => void = () => {};
  const sandbox: RunSandbox = await setupSandbox({
    spec,
    workspace,
    protectedGlobs: protectedPaths(task, workspace, outDir, spec.protect),
    toolOutputDir: path.join(outDir, TOOL_OUTPUT_DIR),
    env,
    trusted: options.trusted ?? true,
    // The run's events start after the set-up; until then there is nothing to tell.
    onWarning: (message) => warn(message),
  }).catch(async (error: unknown) => {
    await undoPaths();
    await resume?.dispose();
    throw error;
  });
  const outputs = {
    dir: outDir,
    patch: path.join(outDir, OUTPUT_FILES.patch),
    usage: path.join(outDir, OUTPUT_FILES.usage),
    summary: path.join(outDir, OUTPUT_FILES.summary),
    events: path.join(outDir, OUTPUT_FILES.events),
    transcript: path.join(outDir, TRANSCRIPT_FILE),
    result: path.join(outDir, OUTPUT_FILES.result),
  };

  const redactor = createRedactor({
    env,
    extra: [...sandbox.gitSecrets, ...apiKeyValues(task, env), ...(options.secretValues ?? [])],
  });
  const messageRedactions = createMessageRedactions(redactor);
  stream = redactRequests(stream, redactor, messageRedactions);

  // The runner's tools, then the MCP servers' (started now: one that cannot start is exit 2,
  // before anything ran), each set of names kept apart from the others.
  const review = spec.review.inline
    ? createReviewCollector({
        workspace,
        maxComments: spec.review.maxComments,
        file: path.join(outDir, REVIEW_FILE),
        redact: redactor.redact,
        ...(pr && { target: pr.review }),
      })
    : undefined;

  const runnerTools: AnyAgentTool[] = [createGiveUpTool()];
  if (review) runnerTools.push(review.tool);
  if (result) runnerTools.push(result.tool);
  const undo = async () => {
    await sandbox.dispose();
    await undoPaths();
    await resume?.dispose();
  };
  // A stdio server runs in the workspace and may write there as it starts (a cache, a log): that
  // is the run's doing, so the snapshot is complete first.
  if (spec.mcpServers.some((server) => server.transport === "stdio")) await snapshotting.catch(() => {});
  const mcp = await startTaskMcpServers({
    spec,
    workspace,
    env,
    sandbox,
    redactor,
    taken: new Set([...spec.tools.map((tool) => tool.name), ...runnerTools.map((tool) => tool.name)]),
  }).catch(async (error: unknown) => {
    await undo();
    throw error;
  });
  if (mcp) runnerTools.push(...mcp.tools);
  if (result) await rm(outputs.result, { force: true });
  // One run's events: an earlier run's file in the same folder starts over.
  await writeFile(outputs.events, "");
  const events = createEventsWriter(outputs.events, { redact: redactor.redact });
  const collector = new RecordCollector();
  const emit = (event: RunEvent) => {
    collector.handle(event);
    const compact = compactEvent(event);
    events.write(compact);
    if (!options.onEvent) return;
    try {
      const returned: unknown = options.onEvent(redactor.redactDeep(compact));
      // A library user's listener may be async: its rejection is as harmless as a throw, never an
      // unhandled rejection that would end the caller's process mid-run.
      if (isThenable(returned)) Promise.resolve(returned).catch(() => {});
    } catch {
      // A failing renderer must not cost the run its outputs; events.jsonl has everything.
    }
  };
  warn = (message) => emit({ type: "warning", message });

  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? spec.limits.timeoutMs;
  const ctx: RunContext = {
    options,
    env,
    started,
    task,
    spec,
    workspace,
    outputs,
    stream,
    recorder,
    sandbox,
    redactor,
    messageRedactions,
    commandEnv: agentEnv(env),
    events,
    collector,
    emit,
    controller,
    timeoutMs,
    runnerTools,
    review,
    cleanups: [
      { what: "the sandbox", dispose: () => sandbox.dispose() },
      ...(resume ? [{ what: "the resumed run's patch copy", dispose: () => resume.dispose() }] : []),
      // After the sandbox in the list, so stopped before it: a server's bwrap goes first.
      ...(mcp ? [{ what: "the MCP servers", dispose: () => mcp.close() }] : []),
    ],
    snapshotting,
    stopSnapshot,
    unchanged: false,
    runId: randomUUID(),
    resume,
    snapshot: undefined,
    checkpoints: undefined,
    interruptedAt: undefined,
    outcome: undefined,
    crash: undefined,
    transcript: undefined,
    transcriptSpool: undefined,
    notes: [...sandbox.notes, ...(resume?.notes ?? [])],
    mcpTools: mcp?.entries ?? [],
    result: result?.state,
    stopChecks: undefined,
    savedOutputLooks: createSavedOutputLooks(path.join(outDir, TOOL_OUTPUT_DIR), redactor),
  };
  if (review) {
    ctx.cleanups.push({
      what: "the review comments",
      beforeOutputs: true,
      dispose: async () => {
        await review.flush();
        const note = review.note();
        if (note) ctx.notes.push(note);
      },
    });
  }
  ctxHolder.ctx = ctx;
  // A replay calls no model and is priced by the recorded one: the spec's model is not the point.
  if (!options.replay) {
    const maxCostUsd = options.maxCostUsd ?? spec.limits.maxCostUsd;
    // Prices come from the model catalog, a lazy chunk loaded once a response is in (it never
    // delays the first request); a cost limit needs the price now, to say if it cannot be enforced.
    if (maxCostUsd !== undefined) await loadModelCatalog();
    ctx.notes.push(...modelRunNotes(spec, maxCostUsd !== undefined ? { maxCostUsd } : {}));
  }
  return ctx;
}

async function loadTaskFor(
  options: RunTaskOptions,
  env: NodeJS.ProcessEnv,
  extraVars: Record<string, string> | undefined,
): Promise<LoadedTask> {
  const vars = extraVars ? { ...options.vars, ...extraVars } : options.vars;
  const common = {
    env,
    ...(vars && { vars }),
    ...(options.prompt !== undefined && { promptOverride: options.prompt }),
    ...(options.model !== undefined && { modelOverride: options.model }),
  };
  if (options.taskFile) return loadTask(options.taskFile, common);
  return parseInlineTask({ ...common, cwd: options.cwd ?? process.cwd() });
}

/** Every model the task may call, so a missing API key is reported before the first turn. */
function taskModels(task: LoadedTask): Model[] {
  const models = [task.spec.model];
  for (const rule of task.spec.hooks.prepareNextTurn) if (rule.model) models.push(rule.model);
  return models;
}

/** The values of the variables the spec's models name in `api_key_env`, whatever those are called. */
function apiKeyValues(task: LoadedTask, env: NodeJS.ProcessEnv): string[] {
  return taskModels(task).flatMap((model) => {
    const value = model.apiKeyEnv === undefined ? undefined : env[model.apiKeyEnv];
    return value === undefined ? [] : [value];
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}
