/**
 * What the run gets of the pull request: always its base and head commits
 * (`{{ vars.pr_base_sha }}`, `{{ vars.pr_head_sha }}`); its diff (`{{ vars.pr_diff_file }}`, and
 * the lines review comments are checked against) when the task can use it: the spec or the
 * prompt names `pr_diff_file`, or the spec has `review.inline`. Computing the diff may deepen a
 * shallow clone, which a task that never reads it should not wait for, nor fail on.
 */

import { errorText } from "../core/errors.ts";
import { formatCount } from "../core/format.ts";
import type { RunPullRequest } from "../run/pull-request.ts";
import { peekTaskDocument } from "../spec/spec-file.ts";
import { preparePrDiff } from "./pr-diff.ts";
import type { PullRequestInfo } from "./pull-request-info.ts";

export type PullRequestRun =
  | { ok: true; pullRequest: RunPullRequest; note: string }
  | { ok: true; pullRequest: undefined; vars: Record<string, string> }
  | { ok: false; message: string };

export interface PullRequestRunOptions {
  pr: PullRequestInfo;
  taskFile: string | undefined;
  prompt: string | undefined;
  /** A folder of the checkout. */
  dir: string;
  tempDir: string | undefined;
  token: string | undefined;
  serverUrl: string;
}

/** Never throws. */
export async function pullRequestRun(options: PullRequestRunOptions): Promise<PullRequestRun> {
  const { pr } = options;
  if (!(await needsDiff(options.taskFile, options.prompt))) {
    return { ok: true, pullRequest: undefined, vars: { pr_base_sha: pr.baseSha, pr_head_sha: pr.headSha } };
  }
  const diff = await preparePrDiff({
    pr,
    dir: options.dir,
    ...(options.tempDir !== undefined && { tempDir: options.tempDir }),
    ...(options.token !== undefined && { token: options.token }),
    serverUrl: options.serverUrl,
  }).catch((error: unknown) => ({
    ok: false as const,
    message: errorText(error),
  }));
  if (!diff.ok) return diff;
  const size = `${formatCount(diff.bytes)} bytes${diff.cut ? ", cut" : ""}`;
  const fetched = diff.fetches > 0 ? `, after ${diff.fetches} fetch${diff.fetches === 1 ? "" : "es"}` : "";
  return {
    ok: true,
    pullRequest: diff.pullRequest,
    note: `pull request #${pr.number}: diff ${diff.mergeBase.slice(0, 12)}...${pr.headSha.slice(0, 12)} (merge base...head, ${size}${fetched})`,
  };
}

async function needsDiff(taskFile: string | undefined, prompt: string | undefined): Promise<boolean> {
  if (prompt?.includes("pr_diff_file")) return true;
  if (taskFile === undefined) return false;
  const spec = (await peekTaskDocument(taskFile))?.value;
  if (typeof spec !== "object" || spec === null) return false;
  const review = (spec as { review?: { inline?: unknown } }).review;
  return review?.inline === true || JSON.stringify(spec).includes("pr_diff_file");
}
