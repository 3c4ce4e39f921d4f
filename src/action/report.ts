/** What the action tells the workflow besides the comment: outputs, the step summary, annotations, the log. */
import path from "node:path";
import * as core from "@actions/core";
import { errorText } from "../core/errors.ts";
import { errorAnnotations } from "./annotations.ts";
import type { EventContext } from "./event-context.ts";
import type { ActionInputs } from "./inputs.ts";
import { type OutputName, skippedOutputs } from "./outputs.ts";
import type { RunFailure } from "./run-protocol.ts";

export function setOutputs(outputs: Partial<Record<OutputName, string>>): void {
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
}

export async function writeStepSummary(markdown: string): Promise<void> {
  try {
    await core.summary.addRaw(markdown, true).write();
  } catch (error) {
    core.warning(`agent-run: step summary not written: ${errorText(error)}`);
  }
}

/** A run that did not happen and need not: a notice saying why, conclusion "skipped", exit code 0. */
export function reportSkipped(message: string, title: string): void {
  core.notice(`agent-run: ${message}`, { title });
  setOutputs(skippedOutputs());
}

/** An error before the run started: annotations at the spec's positions, outputs, step summary. Returns the exit code. */
export async function reportFailure(
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

export function logInputs(inputs: ActionInputs, ctx: EventContext, name: string): void {
  core.startGroup(`agent-run: ${name}`);
  core.info(`task: ${inputs.task ?? "(inline prompt)"}`);
  if (inputs.model) core.info(`model: ${inputs.model}`);
  const spec = inputs.task === undefined ? "." : "(the spec's workdir)";
  core.info(`working-directory: ${inputs.workingDirectory ?? spec}`);
  core.info(
    `comment: ${inputs.comment} · progress: ${inputs.progress} · event: ${ctx.eventName || "(none)"}`,
  );
  if (inputs.maxTurns !== undefined) core.info(`max-turns: ${inputs.maxTurns}`);
  if (inputs.maxCostUsd !== undefined) core.info(`max-cost: ${inputs.maxCostUsd} USD`);
  if (inputs.replay) core.info(`replay: ${inputs.replay}`);
  if (inputs.resume) core.info(`resume: ${inputs.resume}`);
  core.endGroup();
}
