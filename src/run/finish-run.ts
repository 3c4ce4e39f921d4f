import { readFile } from "node:fs/promises";
import path from "node:path";
import { errorText } from "../core/errors.ts";
import type { WorkspaceDiff } from "../output/index.ts";
import { diffWorkspace, disposeSnapshot, redactFilesIn, writeOutputs } from "../output/index.ts";
import { loadModelCatalog, modelLabel } from "../providers/index.ts";
import { unknownCostNote } from "../spec/model-checks.ts";
import { TOOL_OUTPUT_DIR } from "./build-tools.ts";
import { conclude } from "./conclude.ts";
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

  const ended = conclude(
    ctx.outcome,
    ctx.crash,
    ctx.controller.signal.reason,
    options.signal?.reason,
    ctx.collector.gaveUp,
  );
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
  const record = ctx.collector.toRecord({
    taskName: task.name,
    description: firstLine(spec.prompt),
    conclusion: ended.conclusion,
    durationMs: Date.now() - ctx.started,
    model: modelLabel(spec.model),
    ...(ended.reason !== undefined && { reason: ended.reason }),
    ...(options.runUrl !== undefined && { runUrl: options.runUrl }),
    notes,
  });
  let written: Awaited<ReturnType<typeof writeOutputs>>;
  const costUsd = record.usage.costUnknown ? null : record.usage.cost.total;
  try {
    written = await writeOutputs(ctx.outputs.dir, {
      record,
      diff,
      redactor,
      ...(diffError && { diffError }),
    });
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
    await ctx.events.close();
    if (ctx.snapshot) await disposeSnapshot(ctx.snapshot);
  }

  return {
    conclusion: ended.conclusion,
    exitCode: ended.exitCode,
    ...(ended.reason !== undefined && { reason: redactor.redact(ended.reason) }),
    outputs: ctx.outputs,
    changedFiles: diff.files.map((file) => file.path),
    costUsd,
    turns: record.turns,
    summaryMarkdown: await readFile(written.summaryPath, "utf8"),
    record: redactor.redactDeep(record),
    patchHadSecret,
    sandbox: ctx.sandbox.state,
    ...(ctx.review && { review: redactor.redactDeep(ctx.review.result()) }),
  };
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
