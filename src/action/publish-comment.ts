/**
 * Publishing the run as the sticky PR comment: the summary with a secret-holding patch withheld,
 * neutralised (see comment-hygiene.ts), created or updated by its marker.
 */
import { stat } from "node:fs/promises";
import * as core from "@actions/core";
import { upsertComment } from "./comment.ts";
import { buildCommentBody, commentMarker, withholdPatch } from "./comment-body.ts";
import { neutralizeComment } from "./comment-hygiene.ts";
import type { EventContext } from "./event-context.ts";
import type { ApiCallOptions, GitHubClient } from "./github-api.ts";
import type { ActionInputs } from "./inputs.ts";
import type { ActionRunResult } from "./runner-types.ts";

/**
 * Posts or updates the comment as `inputs.comment` says; returns its URL, "" when none was
 * posted. API failures are warnings, never exceptions.
 */
export async function postComment(
  inputs: ActionInputs,
  ctx: EventContext,
  issueNumber: number | undefined,
  result: ActionRunResult,
  name: string,
  client: () => Promise<GitHubClient | undefined>,
  apiOptions: ApiCallOptions | undefined,
): Promise<string> {
  if (inputs.comment === "false") return "";
  if (issueNumber === undefined) {
    core.info(`agent-run: no PR comment (the ${ctx.eventName || "unknown"} event has no pull request)`);
    return "";
  }
  // on-change with an empty patch: never a new comment, but an earlier one is brought up to date
  // so it does not keep showing a patch that no longer applies.
  const createIfMissing = !(inputs.comment === "on-change" && (await patchIsEmpty(result)));
  const github = await client();
  if (!github) {
    core.warning("agent-run: no github-token; the PR comment was not posted");
    return "";
  }
  const outcome = await upsertComment(github, {
    ...apiOptions,
    owner: ctx.owner,
    repo: ctx.repo,
    issueNumber,
    marker: commentMarker(name),
    body: buildCommentBody(publishedSummary(result, ctx), { taskName: name, runUrl: ctx.runUrl }),
    createIfMissing,
  });
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
