/** The action's outputs (DESIGN §6), as strings, from a run's result. */
import type { ActionRunResult } from "./runner-types.ts";

/** Every output name of action.yml, in its order. */
export const OUTPUT_NAMES = [
  "conclusion",
  "exit-code",
  "patch",
  "changed-files",
  "cost-usd",
  "turns",
  "usage",
  "summary",
  "comment-url",
  "review-url",
  "patch-withheld",
  "result",
] as const;

export type OutputName = (typeof OUTPUT_NAMES)[number];

/**
 * `changed-files` is one path a line; `cost-usd` has up to 6 decimals and is empty when unknown;
 * `comment-url` is empty when no comment was posted. When the patch held a secret, `patch` is
 * empty and `patch-withheld` is "true" (else "false"). `result` is the structured result
 * (`output_schema`) as compact JSON, empty when the run did not end with one.
 */
export function actionOutputs(result: ActionRunResult, commentUrl = ""): Record<OutputName, string> {
  return {
    conclusion: result.conclusion,
    "exit-code": String(result.exitCode),
    patch: result.patchHadSecret ? "" : result.outputs.patch,
    "changed-files": result.changedFiles.join("\n"),
    "cost-usd": result.costUsd === null ? "" : formatUsd(result.costUsd),
    turns: String(result.turns),
    usage: result.outputs.usage,
    summary: result.outputs.summary,
    "comment-url": commentUrl,
    "review-url": "",
    "patch-withheld": result.patchHadSecret ? "true" : "false",
    result: result.result === undefined ? "" : JSON.stringify(result.result),
  };
}

/** Outputs of a run that did not happen (a refused comment trigger): conclusion "skipped", exit code 0. */
export function skippedOutputs(): Record<OutputName, string> {
  const outputs = Object.fromEntries(OUTPUT_NAMES.map((name) => [name, ""])) as Record<OutputName, string>;
  outputs.conclusion = "skipped";
  outputs["exit-code"] = "0";
  outputs["patch-withheld"] = "false";
  return outputs;
}

function formatUsd(usd: number): string {
  return String(Number(usd.toFixed(6)));
}
