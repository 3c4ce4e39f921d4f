/**
 * Publishing the run as the sticky PR comment: the summary with a secret-holding patch withheld,
 * neutralised (see comment-hygiene.ts), with the run's state recorded (run-state.ts), written over
 * the progress comment or created by its marker.
 */
import { stat } from "node:fs/promises";
import * as core from "@actions/core";
import type { StickyComment } from "./comment.ts";
import { buildCommentBody, withholdPatch } from "./comment-body.ts";
import { neutralizeComment } from "./comment-hygiene.ts";
import type { EventContext } from "./event-context.ts";
import type { ApiCallOptions } from "./github-api.ts";
import type { ActionInputs } from "./inputs.ts";
import type { RunState } from "./run-state.ts";
import type { ActionRunResult } from "./runner-types.ts";

export interface PublishTarget {
  inputs: ActionInputs;
  ctx: EventContext;
  /** The PR or issue of the event; undefined when the event has none. */
  issueNumber: number | undefined;
  name: string;
  /** The task's comment; resolves to undefined without a token or a target. */
  comment: () => Promise<StickyComment | undefined>;
  apiOptions: ApiCallOptions | undefined;
}

/**
 * Posts or updates the comment as `inputs.comment` says; returns its URL, "" when none was
 * posted. API failures are warnings, never exceptions.
 */
export async function postComment(
  target: PublishTarget,
  result: ActionRunResult,
  state: RunState,
): Promise<string> {
  const { inputs, ctx } = target;
  if (inputs.comment === "false") return "";
  if (target.issueNumber === undefined) {
    core.info(`agent-run: no PR comment (the ${ctx.eventName || "unknown"} event has no pull request)`);
    return "";
  }
  // on-change with an empty patch: never a new comment, but an earlier one is brought up to date
  // so it does not keep showing a patch that no longer applies.
  const createIfMissing = !(inputs.comment === "on-change" && (await patchIsEmpty(result)));
  const comment = await target.comment();
  if (!comment) {
    core.warning("agent-run: no github-token; the PR comment was not posted");
    return "";
  }
  const body = buildCommentBody(publishedSummary(result, ctx), {
    taskName: target.name,
    ...(ctx.runUrl !== undefined && { runUrl: ctx.runUrl }),
    state,
  });
  const outcome = await comment.write(body, { ...target.apiOptions, createIfMissing });
  if (!outcome.ok) {
    core.warning(outcome.message, { title: "agent-run: PR comment not posted" });
    return "";
  }
  if (outcome.value.action === "absent") {
    core.info("agent-run: no PR comment (comment: on-change and the patch is empty)");
    return "";
  }
  core.info(`agent-run: PR comment ${outcome.value.action}: ${outcome.value.url}`);
  return outcome.value.url;
}

/** The summary as the PR comment shows it: patch withheld when it held a secret, then neutralised. */
function publishedSummary(result: ActionRunResult, ctx: EventContext): string {
  const summary = result.patchHadSecret ? withholdPatch(result.summaryMarkdown) : result.summaryMarkdown;
  return neutralizeComment(summary, [new URL(ctx.serverUrl).hostname]);
}

async function patchIsEmpty(result: ActionRunResult): Promise<boolean> {
  try {
    return (await stat(result.outputs.patch)).size === 0;
  } catch {
    return result.changedFiles.length === 0;
  }
}
