import { Agent } from "../core/agent.ts";
import { errorText } from "../core/errors.ts";
import type { AgentRunOutcome } from "../core/events.ts";
import { createHooks } from "../hooks/index.ts";
import { applyPatch, type Checkpoints, createCheckpoints, unapplyFromSnapshot } from "../output/index.ts";
import { modelInfo, modelLabel } from "../providers/index.ts";
import { formatSpecDuration } from "../spec/index.ts";
import { isTimerDelay } from "../system/timer.ts";
import {
  compileProtectedPaths,
  createOutputGuard,
  preloadCommandPolicy,
  warmLineMatcher,
} from "../tools/index.ts";
import { buildTools, protectedPaths, protectedPathsOfRun } from "./build-tools.ts";
import { createCompactor } from "./compaction/compactor.ts";
import { withGitDirGuard } from "./git-dir-guard.ts";
import { withCommandPolicy } from "./policy-guard.ts";
import { prestartWhileModelThinks } from "./prestart.ts";
import { requireResult } from "./result-state.ts";
import { DEFAULT_FOLLOW_UP } from "./resume/prepare-resume.ts";
import { createTranscriptSpool } from "./resume/transcript-spool.ts";
import type { RunContext } from "./run-context.ts";
import { defaultSystemPrompt } from "./system-prompt.ts";
import { withTurnCaps } from "./turn-caps.ts";
import {
  afterSnapshot,
  beforeStopWaiting,
  checkpointAtTurnEnd,
  checkpointsOnceReady,
  type SnapshotWait,
  snapshotWait,
  waitingForCheckpoints,
} from "./turn-checkpoints.ts";

/**
 * After the run is stopped (a signal, the timeout), the agent has this long to wind down (its
 * commands get SIGTERM, then SIGKILL 2 s later) before the finish phase goes on without it: 4 s.
 */
export const STOP_GRACE_MS = 4000;

/**
 * The execute phase: snapshot the workspace, build the tools, hooks and agent, and run the agent
 * until it ends. Never throws: how it ended is left in `ctx.outcome`, a runner failure in
 * `ctx.crash`; the finish phase makes the outputs of either.
 */
export async function executeRun(ctx: RunContext): Promise<void> {
  const { options, spec, controller, emit } = ctx;
  const timer = isTimerDelay(ctx.timeoutMs)
    ? setTimeout(() => controller.abort("timeout"), ctx.timeoutMs)
    : undefined;
  const onExternalAbort = () => {
    ctx.interruptedAt ??= Date.now();
    controller.abort(options.signal?.reason ?? "SIGTERM");
  };
  if (options.signal?.aborted) onExternalAbort();
  options.signal?.addEventListener("abort", onExternalAbort, { once: true });
  try {
    // The first model call goes out while the snapshot is taken; tools and command hooks wait for it.
    let turnCheckpoints = false;
    const snapshotted = ctx.snapshotting.then((snapshot) => {
      ctx.snapshot = snapshot;
      const snapshotGit = ctx.sandbox.snapshotGit?.(snapshot);
      if (snapshotGit !== undefined && snapshotGit !== "unconfinable") snapshot.confine = snapshotGit;
      // Without a bwrap to walk the workspace in, the index is brought up to date once, after the
      // model's processes are gone; a second stop signal then finds no checkpoint to write.
      turnCheckpoints = snapshotGit !== "unconfinable";
      return createCheckpoints(snapshot, {
        onError: (message) => emit({ type: "warning", message }),
        ...(ctx.sandbox.quiet && { quiet: ctx.sandbox.quiet }),
      });
    });
    snapshotted.catch((error: unknown) => {
      // Stopped on purpose: the run ended needing none.
      if (ctx.stopSnapshot.signal.aborted) return;
      ctx.crash ??= `internal error: ${errorText(error)}`;
      emit({ type: "warning", message: ctx.crash });
      controller.abort("the workspace snapshot failed");
    });
    const checkpoints = checkpointsOnceReady(snapshotted);
    ctx.checkpoints = checkpoints;
    const snapshotNeeded = snapshotWait(snapshotted);
    const agent = createAgent(ctx, checkpoints, snapshotNeeded);
    agent.subscribe(emit);
    agent.subscribe((event) => {
      if (event.type !== "tool_execution_end" || event.toolName !== "bash") return;
      const saved = (event.result.details as { fullOutputPath?: unknown } | undefined)?.fullOutputPath;
      if (typeof saved === "string") ctx.savedOutputLooks.start(saved);
    });
    const atTurnEnd = checkpointAtTurnEnd(checkpoints);
    agent.subscribe((event) => {
      if (turnCheckpoints) atTurnEnd(event);
    });
    const { prestart } = ctx.sandbox;
    const bash = spec.tools.find((tool) => tool.name === "bash")?.options;
    const guarded = protectedPathsOfRun(ctx.task, ctx.workspace, ctx.outputs.dir);
    if (prestart || bash || guarded.length > 0) {
      // In the model's time rather than the first tool call's (see prestart.ts); the session's
      // start, the parser's load and the protected globs' compiling overlap too, the one in the
      // time the other waits.
      prestartWhileModelThinks(agent.subscribe.bind(agent), () => {
        prestart?.();
        if (bash) preloadCommandPolicy(bash);
        if (guarded.length > 0) setImmediate(() => compileProtectedPaths(guarded));
      });
    }
    if (spec.tools.some((tool) => tool.name === "grep")) {
      // grep's regex worker (~65 ms to start here) starts while the model still streams the call's
      // arguments; only for a grep, since a run that never greps would pay for it in full.
      agent.subscribe((event) => {
        if (event.type !== "message_update" || event.event.type !== "toolcall_delta") return;
        const part = event.event.partial.content[event.event.contentIndex];
        if (part?.type === "toolCall" && part.name === "grep") warmLineMatcher();
      });
    }
    if (ctx.resume) await snapshotNeeded.wait();
    await continueEarlierRun(ctx, checkpoints);
    const compactor = ctx.compactor;
    const transcript = () => (compactor ? compactor.view(agent.state.messages) : agent.state.messages);
    ctx.transcript = transcript;
    const spool = createTranscriptSpool({
      target: ctx.outputs.transcript,
      head: {
        run_id: ctx.runId,
        ...(ctx.resume && { resumed_from: ctx.resume.transcript.run_id }),
        task: ctx.task.name,
        started_at: new Date(ctx.started).toISOString(),
      },
      redactions: ctx.messageRedactions,
      redactor: ctx.redactor,
    });
    ctx.transcriptSpool = spool;
    agent.subscribe((event) => {
      if (event.type === "turn_end") spool.update(transcript());
    });
    // A resumed run goes on with a follow-up message: `--prompt` when given, else "continue".
    const prompt = ctx.resume && options.prompt === undefined ? DEFAULT_FOLLOW_UP : spec.prompt;
    ctx.outcome = await untilStopped(ctx, agent.prompt(prompt, { signal: controller.signal }));
    ctx.collector.setUsage(ctx.outcome.usage);
    // Whatever may change a file waits for the snapshot first (stdio MCP servers did in the
    // prepare phase): when nothing did, nothing changed, and a snapshot still being taken (a
    // quick text answer) is stopped rather than waited for.
    const mcpWaited = ctx.spec.mcpServers.some((server) => server.transport === "stdio");
    if (!snapshotNeeded.waited && !mcpWaited) {
      ctx.unchanged = true;
      ctx.stopSnapshot.abort();
    }
    await snapshotted.catch(() => {});
    if (ctx.outcome.reason === "aborted" && controller.signal.reason === "timeout") {
      emit({
        type: "limit",
        limit: "timeout",
        message: `timeout reached (${formatSpecDuration(ctx.timeoutMs ?? 0)})`,
      });
    }
  } catch (error) {
    ctx.crash = `internal error: ${errorText(error)}`;
    emit({ type: "warning", message: ctx.crash });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onExternalAbort);
    controller.abort("finished");
  }
}

/**
 * A resumed run's start: the earlier patch goes into the workspace after the snapshot (so the
 * patch of this run holds it), or, when the workspace holds it already, out of the snapshot. Either
 * way a checkpoint follows, so a run stopped before its first writing turn still has that patch.
 */
async function continueEarlierRun(ctx: RunContext, checkpoints: Checkpoints): Promise<void> {
  const { resume, snapshot } = ctx;
  if (!resume || !snapshot) return;
  if (resume.patch === "applies") await applyPatch(ctx.workspace, resume.patchFile);
  if (resume.patch === "held") await unapplyFromSnapshot(snapshot, resume.patchFile);
  if (resume.patch !== "empty") checkpoints.take(0, { now: true });
  ctx.emit({
    type: "resume",
    from: resume.dir,
    runId: resume.transcript.run_id,
    patch: resume.patch === "applies" ? "applied" : resume.patch,
    messages: resume.messages.length,
    turns: resume.transcript.totals.turns,
  });
}

/**
 * The agent's outcome, or, when it has not ended STOP_GRACE_MS after the run was stopped, an
 * "aborted" outcome from what the run recorded so far: a stuck tool must not keep the outputs waiting.
 */
async function untilStopped(ctx: RunContext, prompt: Promise<AgentRunOutcome>): Promise<AgentRunOutcome> {
  const { controller } = ctx;
  let timer: NodeJS.Timeout | undefined;
  let stopWatching = () => {};
  const gaveUp = new Promise<AgentRunOutcome>((resolve) => {
    const start = () => {
      timer = setTimeout(() => {
        ctx.agentLeftRunning = true;
        ctx.emit({
          type: "warning",
          message: `the agent did not stop within ${STOP_GRACE_MS / 1000} s of being stopped; finishing without it`,
        });
        resolve({
          reason: "aborted",
          newMessages: [],
          turns: ctx.collector.turns,
          usage: structuredClone(ctx.collector.usage),
        });
      }, STOP_GRACE_MS);
    };
    if (controller.signal.aborted) start();
    else controller.signal.addEventListener("abort", start, { once: true });
    stopWatching = () => controller.signal.removeEventListener("abort", start);
  });
  try {
    return await Promise.race([prompt, gaveUp]);
  } finally {
    stopWatching();
    clearTimeout(timer);
  }
}

/** The agent of the run: the spec's tools and the runner's, the hooks and guards, the limits. */
function createAgent(ctx: RunContext, checkpoints: Checkpoints, snapshotted: SnapshotWait): Agent {
  const { task, spec, options, workspace, sandbox, emit } = ctx;
  // One guard for the run's saved outputs; it keeps watching finished commands' files for
  // processes they left behind (`setsid yes &`) until the run ends.
  const outputGuard = createOutputGuard({
    commandCapBytes: spec.caps.commandOutputBytes,
    totalCapBytes: spec.caps.savedOutputBytes,
    linger: true,
    // A big output's look for secrets gets its worker started while the command still runs.
    onSize: (bytes) => ctx.savedOutputLooks.growing(bytes),
  });
  // First in the list, so released last: after the sandbox has taken its processes along.
  ctx.cleanups.unshift({ what: "the saved-output guard", dispose: async () => outputGuard.dispose() });
  const specTools = buildTools(task, workspace, ctx.outputs.dir, ctx.commandEnv, {
    ...(sandbox.bashPrepare && { bashPrepare: sandbox.bashPrepare }),
    outputGuard,
    // A kept output's look for secrets starts as its command ends, beside the tool's reading of
    // its view, not after it (the tool_execution_end below is then a no-op for that file).
    onOutputKept: (file) => ctx.savedOutputLooks.start(file),
    ...(sandbox.fileOperations && { fileOperations: sandbox.fileOperations }),
  });
  const tools = waitingForCheckpoints([...specTools, ...ctx.runnerTools], checkpoints, snapshotted);
  emit({
    type: "run_start",
    task: task.name,
    model: modelLabel(spec.model),
    workspace,
    outputDir: ctx.outputs.dir,
    tools: [...specTools.map((tool) => tool.name), ...ctx.mcpTools.map((tool) => tool.name)],
    execution: spec.execution,
    startedAt: new Date(ctx.started).toISOString(),
  });
  // The sandbox's notes and the model's (deprecated, a cost limit that cannot be enforced).
  for (const note of ctx.notes) emit({ type: "warning", message: note });

  const hooks = createHooks(task, {
    workspace,
    env: ctx.commandEnv,
    emit,
    ...(sandbox.wrapHookCommand && { wrapCommand: sandbox.wrapHookCommand }),
    maxOutputBytes: spec.caps.commandOutputBytes,
    getTurn: () => ctx.collector.turns,
    getCost: () => (ctx.collector.usage.costUnknown ? null : ctx.collector.usage.cost.total),
  });
  if (spec.compaction.enabled) {
    ctx.compactor = createCompactor({
      stream: ctx.stream,
      contextWindow: (model) => modelInfo(model).contextWindow,
      threshold: spec.compaction.threshold,
      target: spec.compaction.target,
      emit,
    });
  }
  // submit_result runs the spec's before_stop checks too; with a schema, stopping needs a result.
  ctx.stopChecks = hooks.beforeStop;
  const waiting = beforeStopWaiting(hooks.beforeStop, checkpoints, snapshotted);
  const beforeStop = ctx.result ? requireResult(ctx.result, waiting) : waiting;
  const beforeToolCall = withCommandPolicy(
    spec.tools,
    // In the sandbox the git config is a copy without credentials; the guard is for file tools outside it.
    withGitDirGuard(
      workspace,
      sandbox.gitSecrets.length > 0 && !sandbox.fileOperations,
      afterSnapshot(hooks.beforeToolCall, snapshotted),
    ),
    { workspace, protectedPaths: protectedPaths(task, workspace, ctx.outputs.dir, spec.protect) },
  );
  return new Agent({
    stream: ctx.stream,
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
    // Outermost: a call past caps.turn_tool_calls meets no other guard; results are counted
    // against caps.turn_results with the task's after_tool_call output in them.
    ...withTurnCaps(
      { maxCalls: spec.caps.turnToolCalls, maxResultBytes: spec.caps.turnResultBytes },
      {
        ...(beforeToolCall !== undefined && { beforeToolCall }),
        ...(hooks.afterToolCall !== undefined && {
          afterToolCall: afterSnapshot(hooks.afterToolCall, snapshotted),
        }),
      },
    ),
    ...(ctx.compactor && { transformContext: ctx.compactor.transformContext }),
    ...(ctx.resume && { messages: ctx.resume.messages }),
    ...(beforeStop !== undefined && { beforeStop }),
    limits: {
      ...spec.limits,
      ...(options.maxTurns !== undefined && { maxTurns: options.maxTurns }),
      ...(options.maxCostUsd !== undefined && { maxCostUsd: options.maxCostUsd }),
      ...(ctx.timeoutMs !== undefined && { timeoutMs: ctx.timeoutMs }),
    },
  });
}
