import { readFile } from "node:fs/promises";
import path from "node:path";
import { errorText } from "../core/errors.ts";
import type { AgentMessage } from "../core/types.ts";
import type { RunRecord, RunTotals, WorkspaceDiff } from "../output/index.ts";
import {
  diffWorkspace,
  disposeSnapshot,
  type ResumedRun,
  redactFilesIn,
  runTotals,
  writeFileAtomic,
  writeOutputs,
} from "../output/index.ts";
import { loadModelCatalog, modelLabel } from "../providers/index.ts";
import { unknownCostNote } from "../spec/model-checks.ts";
import { TOOL_OUTPUT_DIR } from "./build-tools.ts";
import { conclude } from "./conclude.ts";
import { writeTranscript } from "./resume/transcript-file.ts";
import type { RunContext } from "./run-context.ts";
import type { RunResult } from "./types.ts";

/**
 * The finish phase: the end-of-run guarantees live here. Whatever ended the execute phase, it
 * releases the run's resources, computes the patch, writes patch.diff, usage.json and summary.md,
 * ends events.jsonl with `run_end` and returns the result with the exit code of DESIGN §4.
 */
export async function finishRun(ctx: RunContext): Promise<RunResult> {
  const { emit, redactor, spec, task, options } = ctx;
  for (const cleanup of [...ctx.cleanups].reverse()) {
    await cleanup.dispose().catch((error: unknown) => {
      emit({ type: "warning", message: `${cleanup.what} could not be cleaned up: ${errorText(error)}` });
    });
  }

  // The bash tool saved full outputs as the commands printed them; like every output, they keep
  // no secret (the commands have ended: the sandbox went with the cleanups).
  await redactFilesIn(path.join(ctx.outputs.dir, TOOL_OUTPUT_DIR), redactor);

  const ended = conclude({
    outcome: ctx.outcome,
    crash: ctx.crash,
    abortReason: ctx.controller.signal.reason,
    externalReason: options.signal?.reason,
    gaveUp: ctx.collector.gaveUp,
    ...(ctx.result && { result: ctx.result }),
  });
  // The structured result counts only for a run that succeeded with it; like every output, it
  // keeps no secret.
  const result =
    ended.conclusion === "success" && ctx.result?.accepted
      ? redactor.redactDeep(ctx.result.value)
      : undefined;
  let diff: WorkspaceDiff = { patch: "", files: [], diffstat: "" };
  let diffError: string | undefined;
  if (ctx.snapshot) {
    try {
      diff = await diffWorkspace(ctx.snapshot, ctx.workspace);
    } catch (error) {
      diffError = `the patch could not be computed: ${errorText(error)}`;
      emit({ type: "warning", message: diffError });
    }
  }
  await ctx.recorder?.flush().catch((error: unknown) => {
    emit({ type: "warning", message: `the session could not be recorded: ${errorText(error)}` });
  });

  // The redactor changing the patch means a secret was in it: patch.diff is then not what the
  // agent did, and must not be published or applied.
  const patchHadSecret = diff.patch !== "" && redactor.redact(diff.patch) !== diff.patch;
  const notes = [...ctx.notes];
  if (ctx.collector.usage.costUnknown) {
    await loadModelCatalog();
    notes.push(unknownCostNote(spec));
  }
  // Which process cap held the commands: a fact for the summary, not a warning (when it is a weak
  // one, the sandbox set-up made it a warning note too).
  if (ctx.sandbox.capNote !== undefined && !notes.includes(ctx.sandbox.capNote))
    notes.push(ctx.sandbox.capNote);
  if (patchHadSecret) {
    notes.push(
      "The patch contained a secret value; it was redacted in patch.diff, which must not be published or applied.",
    );
  }
  const resumedFrom = resumedRun(ctx);
  const record = ctx.collector.toRecord({
    taskName: task.name,
    description: firstLine(
      ctx.resume?.transcript.messages[0] ? taskText(ctx.resume.transcript.messages[0]) : spec.prompt,
    ),
    conclusion: ended.conclusion,
    durationMs: Date.now() - ctx.started,
    model: modelLabel(spec.model),
    ...(ended.reason !== undefined && { reason: ended.reason }),
    ...(options.runUrl !== undefined && { runUrl: options.runUrl }),
    notes,
    runId: ctx.runId,
    ...(resumedFrom && { resumedFrom }),
    ...(result !== undefined && { result }),
  });
  const totals = runTotals(record);
  let written: Awaited<ReturnType<typeof writeOutputs>>;
  const costUsd = totals.usage.costUnknown ? null : totals.usage.cost.total;
  let resultWritten = false;
  try {
    if (result !== undefined) {
      resultWritten = await writeResultJson(ctx.outputs.result, result).then(
        () => true,
        (error: unknown) => {
          emit({ type: "warning", message: `result.json could not be written: ${errorText(error)}` });
          return false;
        },
      );
    }
    written = await writeOutputs(ctx.outputs.dir, {
      record,
      diff,
      redactor,
      ...(diffError && { diffError }),
    });
    await saveTranscript(ctx, record, totals, patchHadSecret);
    emit({
      type: "run_end",
      conclusion: ended.conclusion,
      exitCode: ended.exitCode,
      ...(ended.reason !== undefined && { reason: ended.reason }),
      turns: totals.turns,
      durationMs: record.durationMs,
      costUsd,
      filesChanged: diff.files.length,
    });
  } finally {
    await ctx.events.close();
    if (ctx.snapshot) await disposeSnapshot(ctx.snapshot);
  }

  return {
    conclusion: ended.conclusion,
    exitCode: ended.exitCode,
    ...(ended.reason !== undefined && { reason: redactor.redact(ended.reason) }),
    outputs: {
      dir: ctx.outputs.dir,
      patch: ctx.outputs.patch,
      usage: ctx.outputs.usage,
      summary: ctx.outputs.summary,
      events: ctx.outputs.events,
      transcript: ctx.outputs.transcript,
      ...(resultWritten && { result: ctx.outputs.result }),
    },
    ...(result !== undefined && { result }),
    changedFiles: diff.files.map((file) => file.path),
    costUsd,
    turns: totals.turns,
    summaryMarkdown: await readFile(written.summaryPath, "utf8"),
    record: redactor.redactDeep(record),
    patchHadSecret,
    sandbox: ctx.sandbox.state,
    ...(ctx.review && { review: redactor.redactDeep(ctx.review.result()) }),
  };
}

/** The earlier run a resumed run continues, from its transcript. */
function resumedRun(ctx: RunContext): ResumedRun | undefined {
  const transcript = ctx.resume?.transcript;
  if (!transcript) return undefined;
  return {
    runId: transcript.run_id,
    conclusion: transcript.conclusion,
    turns: transcript.totals.turns,
    durationMs: transcript.totals.durationMs,
    usage: transcript.totals.usage,
    toolCalls: transcript.totals.toolCalls,
  };
}

/**
 * Writes transcript.json, what a later `--resume` reads. Without an agent (the run crashed before
 * it started) there is no conversation, and no transcript. A failure is a warning: the other
 * outputs are written already.
 */
async function saveTranscript(
  ctx: RunContext,
  record: RunRecord,
  totals: RunTotals,
  patchHadSecret: boolean,
): Promise<void> {
  const messages = ctx.transcript?.();
  if (!messages || messages.length === 0) return;
  try {
    await writeTranscript(
      ctx.outputs.dir,
      {
        run_id: ctx.runId,
        ...(ctx.resume && { resumed_from: ctx.resume.transcript.run_id }),
        task: ctx.task.name,
        model: record.model,
        started_at: new Date(ctx.started).toISOString(),
        conclusion: record.conclusion,
        ...(record.reason !== undefined && { reason: record.reason }),
        patch_had_secret: patchHadSecret,
        totals,
      },
      messages,
      ctx.redactor,
    );
  } catch (error) {
    ctx.emit({ type: "warning", message: `transcript.json could not be written: ${errorText(error)}` });
  }
}

function taskText(message: AgentMessage): string {
  if (message.role !== "user") return "";
  return typeof message.content === "string"
    ? message.content
    : message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** result.json: the value as JSON, two-space indented, one newline at the end. */
async function writeResultJson(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
