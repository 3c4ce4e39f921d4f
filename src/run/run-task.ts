import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Agent } from "../core/agent.ts";
import { errorText } from "../core/errors.ts";
import type { AgentRunOutcome } from "../core/events.ts";
import type { StreamFunction } from "../core/provider.ts";
import type { Model } from "../core/types.ts";
import { createHooks } from "../hooks/index.ts";
import type { WorkspaceDiff } from "../output/index.ts";
import {
  createEventsWriter,
  createRedactor,
  diffWorkspace,
  disposeSnapshot,
  snapshotWorkspace,
  type WorkspaceSnapshot,
  writeOutputs,
} from "../output/index.ts";
import { createProviderRouter, createRecorder, loadReplayFile, modelLabel } from "../providers/index.ts";
import { formatDuration, type LoadedTask, loadTask, parseInlineTask } from "../spec/index.ts";
import { buildTools, protectedPaths } from "./build-tools.ts";
import { compactEvent } from "./compact-event.ts";
import { conclude } from "./conclude.ts";
import { withGitDirGuard } from "./git-dir-guard.ts";
import { createGiveUpTool } from "./give-up-tool.ts";
import { withCommandPolicy } from "./policy-guard.ts";
import { RecordCollector } from "./record.ts";
import { redactRequests } from "./redact-requests.ts";
import { agentEnv, type RunSandbox, setupSandbox } from "./sandbox-setup.ts";
import { defaultSystemPrompt } from "./system-prompt.ts";
import type { RunEvent, RunResult, RunTaskOptions } from "./types.ts";
import { RunSetupError } from "./types.ts";

/**
 * Runs one task from spec to outputs. A bad spec throws `SpecError` before anything runs (exit
 * 2). Everything after that resolves with a result: the model stopping, a failed check, a limit,
 * a provider failure, an interruption or a crash inside the runner all end with the four output
 * files written and the matching exit code.
 */
export async function runTask(options: RunTaskOptions): Promise<RunResult> {
  const env = options.env ?? process.env;
  const started = Date.now();
  const task = await loadTaskFor(options, env);
  const spec = task.spec;

  // Configuration problems (a missing API key, a bad replay file) are usage errors: found here,
  // before anything is written, they throw ProviderConfigError and the CLI exits 2.
  let stream: StreamFunction = createProviderRouter({
    env,
    ...(options.replay ? { replay: await loadReplayFile(options.replay) } : { models: taskModels(task) }),
  });
  const recorder = options.record ? createRecorder(stream, options.record) : undefined;
  if (recorder) stream = recorder;

  const workspace = path.resolve(options.cwd ?? path.resolve(task.dir, spec.workdir));
  const workspaceStat = await stat(workspace).catch(() => undefined);
  if (!workspaceStat?.isDirectory()) {
    throw new RunSetupError("workspace_missing", `the workspace ${workspace} is not a directory`);
  }
  const outDir = options.outDir ? path.resolve(options.outDir) : path.resolve(workspace, spec.outputs.dir);
  if (outDir === workspace) {
    throw new RunSetupError(
      "outputs_dir_invalid",
      `the outputs folder is the workspace itself (${outDir}); use a subfolder such as .agent-run`,
    );
  }
  // A sandbox that is required but cannot start is a set-up error (exit 2) found before anything
  // is written; see sandbox-setup.ts.
  let warn: (message: string) => void = () => {};
  const sandbox: RunSandbox = await setupSandbox({
    spec,
    workspace,
    protectedGlobs: protectedPaths(task, workspace, outDir, spec.protect),
    env,
    trusted: options.trusted ?? true,
    // The run's events start after the set-up; until then there is nothing to tell.
    onWarning: (message) => warn(message),
  });
  try {
    await mkdir(outDir, { recursive: true });
  } catch (error) {
    await sandbox.dispose();
    throw new RunSetupError(
      "outputs_dir_invalid",
      `the outputs folder ${outDir} cannot be created: ${errorText(error)}`,
    );
  }
  const outputs = {
    dir: outDir,
    patch: path.join(outDir, "patch.diff"),
    usage: path.join(outDir, "usage.json"),
    summary: path.join(outDir, "summary.md"),
    events: path.join(outDir, "events.jsonl"),
  };

  const redactor = createRedactor({ env, extra: sandbox.gitSecrets });
  stream = redactRequests(stream, redactor);
  const commandEnv = agentEnv(env);
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
      options.onEvent(redactor.redactDeep(compact));
    } catch {
      // A failing renderer must not cost the run its outputs; events.jsonl has everything.
    }
  };

  warn = (message) => emit({ type: "warning", message });
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? spec.limits.timeoutMs;
  // setTimeout fires at once past 2^31-1 ms (~24.8 days): such a timeout is as good as none.
  const timer =
    timeoutMs && timeoutMs <= MAX_TIMER_MS
      ? setTimeout(() => controller.abort("timeout"), timeoutMs)
      : undefined;
  const onExternalAbort = () => controller.abort(options.signal?.reason ?? "SIGTERM");
  if (options.signal?.aborted) onExternalAbort();
  options.signal?.addEventListener("abort", onExternalAbort, { once: true });

  let outcome: AgentRunOutcome | undefined;
  let crash: string | undefined;
  let snapshot: WorkspaceSnapshot | undefined;
  try {
    snapshot = await snapshotWorkspace(workspace, {
      exclude: [outDir, ...(options.record ? [path.resolve(options.record)] : [])],
    });
    const specTools = buildTools(task, workspace, outDir, commandEnv, {
      ...(sandbox.bashPrepare && { bashPrepare: sandbox.bashPrepare }),
    });
    const tools = [...specTools, createGiveUpTool()];
    emit({
      type: "run_start",
      task: task.name,
      model: modelLabel(spec.model),
      workspace,
      outputDir: outDir,
      tools: specTools.map((tool) => tool.name),
      execution: spec.execution,
      startedAt: new Date(started).toISOString(),
    });
    for (const note of sandbox.notes) emit({ type: "warning", message: note });

    const hooks = createHooks(task, {
      workspace,
      env: commandEnv,
      emit,
      ...(sandbox.wrapHookCommand && { wrapCommand: sandbox.wrapHookCommand }),
      getTurn: () => collector.turns,
      getCost: () => (collector.usage.costUnknown ? null : collector.usage.cost.total),
    });
    const agent = new Agent({
      stream,
      model: spec.model,
      thinkingLevel: spec.thinking ?? "off",
      systemPrompt:
        spec.system ??
        defaultSystemPrompt(
          workspace,
          tools.map((tool) => tool.name),
        ),
      tools,
      toolExecution: spec.execution,
      ...hooks,
      ...optional(
        "beforeToolCall",
        withCommandPolicy(
          spec.tools,
          withGitDirGuard(workspace, sandbox.gitSecrets.length > 0, hooks.beforeToolCall),
        ),
      ),
      limits: {
        ...spec.limits,
        ...(options.maxTurns !== undefined && { maxTurns: options.maxTurns }),
        ...(options.maxCostUsd !== undefined && { maxCostUsd: options.maxCostUsd }),
      },
    });
    agent.subscribe(emit);
    outcome = await agent.prompt(spec.prompt, { signal: controller.signal });
    collector.setUsage(outcome.usage);
    if (outcome.reason === "aborted" && controller.signal.reason === "timeout") {
      emit({
        type: "limit",
        limit: "timeout",
        message: `timeout reached (${formatDuration(timeoutMs ?? 0)})`,
      });
    }
  } catch (error) {
    crash = `internal error: ${errorText(error)}`;
    emit({ type: "warning", message: crash });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onExternalAbort);
    controller.abort("finished");
  }

  await sandbox.dispose().catch((error: unknown) => {
    emit({ type: "warning", message: `the sandbox could not be cleaned up: ${errorText(error)}` });
  });

  const ended = conclude(outcome, crash, controller.signal.reason, options.signal?.reason, collector.gaveUp);
  let diff: WorkspaceDiff = { patch: "", files: [], diffstat: "" };
  let diffError: string | undefined;
  if (snapshot) {
    try {
      diff = await diffWorkspace(snapshot, workspace);
    } catch (error) {
      diffError = `the patch could not be computed: ${errorText(error)}`;
      emit({ type: "warning", message: diffError });
    }
  }
  await recorder?.flush().catch((error: unknown) => {
    emit({ type: "warning", message: `the session could not be recorded: ${errorText(error)}` });
  });

  // The redactor changing the patch means a secret was in it: patch.diff is then not what the
  // agent did, and must not be published or applied.
  const patchHadSecret = diff.patch !== "" && redactor.redact(diff.patch) !== diff.patch;
  const notes = [...sandbox.notes];
  if (patchHadSecret) {
    notes.push(
      "The patch contained a secret value; it was redacted in patch.diff, which must not be published or applied.",
    );
  }
  const record = collector.toRecord({
    taskName: task.name,
    description: firstLine(spec.prompt),
    conclusion: ended.conclusion,
    durationMs: Date.now() - started,
    model: modelLabel(spec.model),
    ...(ended.reason !== undefined && { reason: ended.reason }),
    ...(options.runUrl !== undefined && { runUrl: options.runUrl }),
    notes,
  });
  let written: Awaited<ReturnType<typeof writeOutputs>>;
  const costUsd = record.usage.costUnknown ? null : record.usage.cost.total;
  try {
    written = await writeOutputs(outDir, { record, diff, redactor, ...(diffError && { diffError }) });
    emit({
      type: "run_end",
      conclusion: ended.conclusion,
      exitCode: ended.exitCode,
      ...(ended.reason !== undefined && { reason: ended.reason }),
      turns: record.turns,
      durationMs: record.durationMs,
      costUsd,
      filesChanged: diff.files.length,
    });
  } finally {
    await events.close();
    if (snapshot) await disposeSnapshot(snapshot);
  }
  const safeRecord = redactor.redactDeep(record);

  return {
    conclusion: ended.conclusion,
    exitCode: ended.exitCode,
    ...(ended.reason !== undefined && { reason: redactor.redact(ended.reason) }),
    outputs,
    changedFiles: diff.files.map((file) => file.path),
    costUsd,
    turns: record.turns,
    summaryMarkdown: await readFile(written.summaryPath, "utf8"),
    record: safeRecord,
    patchHadSecret,
    sandbox: sandbox.state,
  };
}

async function loadTaskFor(options: RunTaskOptions, env: NodeJS.ProcessEnv): Promise<LoadedTask> {
  const common = {
    env,
    ...(options.vars && { vars: options.vars }),
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

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

const MAX_TIMER_MS = 2 ** 31 - 1;
