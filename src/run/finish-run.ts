import path from "node:path";
import { errorText } from "../core/errors.ts";
import type { AgentMessage } from "../core/types.ts";
import type { RunRecord } from "../output/index.ts";
import {
  disposeSnapshot,
  type ResumedRun,
  type RunOutputsWritten,
  redactFilesIn,
  removeStaleTempFiles,
  runTotals,
  writeFileAtomic,
  writeRunOutputs,
} from "../output/index.ts";
import { loadModelCatalog, modelLabel } from "../providers/index.ts";
import { unknownCostNote } from "../spec/model-checks.ts";
import { killLeftoverProcesses } from "../system/process.ts";
import { TOOL_OUTPUT_DIR } from "./build-tools.ts";
import { conclude, concludeOutputFailure, type Ended } from "./conclude.ts";
import { runCleanups, settleCheckpoint } from "./finish-cleanups.ts";
import { endPatch, type PatchState, partialNote, partialPatch } from "./finish-patch.ts";
import { holdStopSignals } from "./finish-signals.ts";
import { transcriptMessages, writeTranscript } from "./resume/transcript-file.ts";
import type { RunContext } from "./run-context.ts";
import type { RunResult } from "./types.ts";

/**
 * The finish phase: the end-of-run guarantees live here, whoever called the run. Whatever ended the
 * execute phase, it releases the run's resources (meanwhile, when nothing of the model's is alive),
 * computes the patch and writes patch.diff, usage.json and summary.md (in that order, each atomic,
 * each attempted whatever happened to the one before), then transcript.json (what --resume reads),
 * ends events.jsonl with `run_end` once the resources are let go of, and returns the result with
 * the exit code of DESIGN §4.
 *
 * No stop signal ends the process before patch.diff is written. When one says the process must end
 * soon (./finish-signals.ts) and the full patch is not done, the last turn-end checkpoint's patch is
 * written first, marked partial, then everything again once the full patch is there. A patch that
 * cannot be computed, or outputs that cannot be written, end the run as an error (exit 4).
 */
export async function finishRun(ctx: RunContext): Promise<RunResult> {
  const hold = holdStopSignals(ctx);
  // An earlier run's leftover temp outputs (one that was killed) go while the run lets go of its
  // resources: a readdir waited for after them cost 0.3-2.6 ms of the end. Never rejects.
  const staleRemoved = removeStaleTempFiles(ctx.outputs.dir);
  /** The run's resources let go of: awaited before `run_end`, whatever happens. Never rejects. */
  let released: Promise<void> = Promise.resolve();
  try {
    await settleCheckpoint(ctx, hold.urgent);
    // When no process of the model's can be alive (only bash starts any, in the sandbox session,
    // and none is left), nothing changes the workspace any more: the patch is computed, and the
    // outputs written, while the run lets go of its resources (the sandbox's teardown, ~5 ms here),
    // not after. Otherwise the patch waits for them to be gone and what they left to be killed.
    const still = await stillWorkspace(ctx);
    const early = still ? endPatch(ctx) : undefined;
    // What the outputs tell of (the review's note) is in before they are written, either way.
    if (still) await runCleanups(ctx, (cleanup) => cleanup.beforeOutputs === true);
    released = runCleanups(ctx, still ? (cleanup) => cleanup.beforeOutputs !== true : undefined)
      .then(killLeftoverProcesses)
      .then((leftovers) => {
        if (leftovers.length === 0) return;
        ctx.emit({
          type: "warning",
          message: `${leftovers.length} process${leftovers.length === 1 ? "" : "es"} the run's commands left running ${leftovers.length === 1 ? "was" : "were"} stopped`,
        });
      });
    if (!still) await released;
    // The bash tool saved full outputs as the commands printed them; like every output, they keep
    // no secret. The commands have ended (none is alive, or the sandbox went with the cleanups and
    // leftovers are killed), so nothing writes them any more: redacted while git computes the
    // patch and the outputs are written (a 23 MB output: ~0.3 s, most of the big-output wait).
    // Reading takes no room; a copy is written only for a file that held a secret.
    const stopRedacting = new AbortController();
    const redactingSaved = redactFilesIn(path.join(ctx.outputs.dir, TOOL_OUTPUT_DIR), ctx.redactor, {
      signal: stopRedacting.signal,
      earlier: ctx.savedOutputLooks.found,
    });
    // On a full disk those files give way to the outputs: the redaction lets go of them first.
    const letGo = async () => {
      stopRedacting.abort();
      await Promise.all([ctx.savedOutputLooks.stop(), redactingSaved]);
      // The transcript's temp file goes too (the transcript is then written whole, last).
      await ctx.transcriptSpool?.dispose();
    };
    const ended = conclude({
      outcome: ctx.outcome,
      crash: ctx.crash,
      abortReason: ctx.controller.signal.reason,
      externalReason: ctx.options.signal?.reason,
      gaveUp: ctx.collector.gaveUp,
      ...(ctx.result && { result: ctx.result }),
    });
    await staleRemoved;
    const full = early ?? endPatch(ctx);
    // The conversation is over: what transcript.json has not written yet is serialised while git
    // computes the patch in its own processes, instead of after the patch.
    const transcript = new Promise<void>((resolve) => {
      setImmediate(() => {
        spoolConversation(ctx);
        resolve();
      });
    });
    // The note on an unknown cost names what the catalog knows; it loads (from disk) meanwhile.
    if (ctx.collector.usage.costUnknown) await loadModelCatalog();
    const first = await Promise.race([full, hold.urgent.then(() => undefined)]);
    if (first === undefined) await writeAll(ctx, ended, partialPatch(ctx), transcript, letGo);
    const state = first ?? (await full);
    const { written, final, result, resultWritten } = await writeAll(ctx, ended, state, transcript, letGo);
    await redactingSaved;
    await ctx.recorder?.flush().catch((error: unknown) => {
      ctx.emit({ type: "warning", message: `the session could not be recorded: ${errorText(error)}` });
    });
    // A cleanup's warning comes before `run_end`.
    await released;
    const outputsError = written.errors.length > 0 ? written.errors.join("; ") : undefined;
    // A resumed run counts both runs (usage.json's totals).
    const totals = runTotals(written.record);
    const costUsd = totals.usage.costUnknown ? null : totals.usage.cost.total;
    ctx.emit({
      type: "run_end",
      conclusion: final.conclusion,
      exitCode: final.exitCode,
      ...(final.reason !== undefined && { reason: final.reason }),
      turns: totals.turns,
      durationMs: written.record.durationMs,
      costUsd,
      filesChanged: written.patch ? (state.patch?.files.length ?? 0) : 0,
    });
    return {
      conclusion: final.conclusion,
      exitCode: final.exitCode,
      ...(final.reason !== undefined && { reason: ctx.redactor.redact(final.reason) }),
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
      changedFiles: written.patch ? (state.patch?.files.map((file) => file.path) ?? []) : [],
      costUsd,
      turns: totals.turns,
      summaryMarkdown: written.summary,
      record: written.record,
      patchHadSecret: written.patch?.hadSecret ?? false,
      sandbox: ctx.sandbox.state,
      ...(ctx.review && { review: ctx.redactor.redactDeep(ctx.review.result()) }),
      patchStatus: state.status,
      ...(outputsError !== undefined && { outputsError: ctx.redactor.redact(outputsError) }),
    };
  } finally {
    // Whatever failed above (a bug), the resources are let go of, the files closed, the temp dirs
    // removed, the signals let go.
    await released;
    void ctx.savedOutputLooks.stop();
    await ctx.events.close().catch(() => {});
    await ctx.checkpoints?.dispose().catch(() => {});
    await ctx.transcriptSpool?.dispose();
    // The outputs are written: the reaper may remove the snapshot's store while the run returns.
    if (ctx.snapshot) await disposeSnapshot(ctx.snapshot, { background: true }).catch(() => {});
    hold.release();
  }
}

/**
 * Whether nothing can change the workspace any more without the runner: the agent has ended (no
 * tool of its is left running, nor a crash left one) and the sandbox can tell that no process of
 * the model's is alive. Never rejects.
 */
async function stillWorkspace(ctx: RunContext): Promise<boolean> {
  if (ctx.unchanged) return true;
  if (ctx.crash !== undefined || ctx.agentLeftRunning) return false;
  return (await ctx.sandbox.quiet?.().catch(() => false)) === true;
}

/**
 * Writes the three outputs from `state` and says how the run ends with them. `beforeFreeing`: what
 * must let go of the saved outputs before a full disk has them removed.
 */
async function writeAll(
  ctx: RunContext,
  ended: Ended,
  state: PatchState,
  transcript: Promise<void>,
  beforeFreeing?: () => Promise<void>,
): Promise<{ written: RunOutputsWritten; final: Ended; result: unknown; resultWritten: boolean }> {
  let final = state.status === "failed" ? concludeOutputFailure(ended, state.error) : ended;
  // The structured result counts only for a run that succeeded with it; like every output, it
  // keeps no secret.
  const result =
    final.conclusion === "success" && ctx.result?.accepted
      ? ctx.redactor.redactDeep(ctx.result.value)
      : undefined;
  const written = await writeRunOutputs(ctx.outputs.dir, {
    patch: state.patch,
    ...(state.status === "failed" && !state.patch && { diffError: state.error }),
    ...(state.status === "partial" &&
      !state.patch && { diffError: "the run had to stop before it was computed" }),
    redactor: ctx.redactor,
    disposable: [path.join(ctx.outputs.dir, TOOL_OUTPUT_DIR)],
    ...(beforeFreeing && { beforeFreeing }),
    record: ({ patch, freed }) => {
      const notes = [...ctx.notes, ...(ctx.snapshot?.notes ?? [])];
      if (ctx.collector.usage.costUnknown) notes.push(unknownCostNote(ctx.spec));
      // Which process cap held the commands: a fact for the summary, not a warning (when it is a
      // weak one, the sandbox set-up made it a warning note too).
      if (ctx.sandbox.capNote !== undefined && !notes.includes(ctx.sandbox.capNote))
        notes.push(ctx.sandbox.capNote);
      const partial = partialNote(state);
      if (partial) notes.unshift(partial);
      // The redactor changing the patch means a secret was in it: patch.diff is then not what
      // the agent did, and must not be published or applied.
      if (patch?.hadSecret) {
        notes.push(
          "The patch contained a secret value; it was redacted in patch.diff, which must not be published or applied.",
        );
      }
      if (freed) {
        notes.push(
          `The disk was full: the full outputs of cut commands (${TOOL_OUTPUT_DIR}/) were removed to make room for these outputs.`,
        );
      }
      const resumedFrom = resumedRun(ctx);
      const firstMessage = ctx.resume?.transcript.messages[0];
      return ctx.collector.toRecord({
        taskName: ctx.task.name,
        description: firstLine(firstMessage ? taskText(firstMessage) : ctx.spec.prompt),
        conclusion: final.conclusion,
        durationMs: Date.now() - ctx.started,
        model: modelLabel(ctx.spec.model),
        ...(final.reason !== undefined && { reason: final.reason }),
        ...(ctx.options.runUrl !== undefined && { runUrl: ctx.options.runUrl }),
        notes,
        runId: ctx.runId,
        ...(resumedFrom && { resumedFrom }),
        ...(result !== undefined && { result }),
      });
    },
  });
  if (written.errors.length > 0) {
    final = concludeOutputFailure(final, `the outputs could not all be written: ${written.errors[0]}`);
    ctx.emit({ type: "warning", message: written.errors.join("; ") });
  }
  // After the three outputs, which matter more: result.json, then what a later --resume reads.
  let resultWritten = false;
  if (result !== undefined && final.conclusion === "success") {
    resultWritten = await writeFileAtomic(ctx.outputs.result, `${JSON.stringify(result, null, 2)}\n`).then(
      () => true,
      (error: unknown) => {
        ctx.emit({ type: "warning", message: `result.json could not be written: ${errorText(error)}` });
        return false;
      },
    );
  }
  await transcript;
  await saveTranscript(ctx, written.record, final, written.patch?.hadSecret ?? false);
  return { written, final, result: final.conclusion === "success" ? result : undefined, resultWritten };
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
 * Writes transcript.json, what a later `--resume` reads: the rest of the file the run has been
 * writing, or, when that failed, the whole conversation at once. Without an agent (the run crashed
 * before it started) there is no conversation, and no transcript. A failure is a warning: the other
 * outputs are written already.
 */
async function saveTranscript(
  ctx: RunContext,
  record: RunRecord,
  final: Ended,
  patchHadSecret: boolean,
): Promise<void> {
  const messages = ctx.transcript?.();
  const spool = ctx.transcriptSpool;
  if (!messages || messages.length === 0 || !spool) return;
  const tail = {
    model: record.model,
    conclusion: final.conclusion,
    ...(final.reason !== undefined && { reason: final.reason }),
    patch_had_secret: patchHadSecret,
    totals: runTotals(record),
  };
  try {
    try {
      await spool.finish(messages, tail);
      return;
    } catch {
      await spool.dispose();
    }
    const whole = transcriptMessages(messages, ctx.messageRedactions);
    await writeTranscript(ctx.outputs.dir, { head: spool.head, tail }, whole, ctx.redactor);
  } catch (error) {
    ctx.emit({ type: "warning", message: `transcript.json could not be written: ${errorText(error)}` });
  }
}

/** Serialises what transcript.json has not taken of the conversation yet; a failure shows when it is written. */
function spoolConversation(ctx: RunContext): void {
  const messages = ctx.transcript?.();
  if (!messages || messages.length === 0) return;
  try {
    ctx.transcriptSpool?.update(messages);
  } catch {
    // saveTranscript meets it again and says so.
  }
}

function taskText(message: AgentMessage): string {
  if (message.role !== "user") return "";
  return typeof message.content === "string"
    ? message.content
    : message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
