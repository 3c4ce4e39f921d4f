/**
 * The per-head-commit dedupe: on a pull request event that brings a head commit (`opened`,
 * `synchronize`, `reopened`), a task whose sticky comment says it already ran to the end on that
 * head commit is not run again. Comment triggers, other pull request actions, a re-run of the
 * workflow (`GITHUB_RUN_ATTEMPT` > 1) and the `force-rerun` input always run. A run that never
 * finished (the comment still says "running": the runner was killed), or that ended as `error` or
 * `interrupted` (an infrastructure failure, a cancelled job: the task did not get to do its job),
 * does not count.
 */
import type { StickyComment } from "./comment.ts";
import type { ApiCallOptions } from "./github-api.ts";
import type { PullRequestInfo } from "./pull-request-info.ts";
import { readRunState } from "./run-state.ts";

/** Conclusions that do not count as having run: the next event on the same head commit runs. */
const NOT_DONE: readonly string[] = ["error", "interrupted"];

/** The pull request actions the dedupe applies to. */
export const DEDUPED_ACTIONS: readonly string[] = ["opened", "synchronize", "reopened"];

export type DedupeCheck = { skip: true; message: string } | { skip: false; note?: string };

export interface DedupeOptions {
  pr: PullRequestInfo | undefined;
  forceRerun: boolean;
  /** GITHUB_RUN_ATTEMPT, 1 when unset. */
  runAttempt: number;
  /** The task's comment; undefined when there is no token or no comment is posted (`comment: false`). */
  comment: StickyComment | undefined;
  marker: string;
  apiOptions?: ApiCallOptions;
}

/** Never throws; a comment that cannot be read lets the run go on. */
export async function checkDedupe(options: DedupeOptions): Promise<DedupeCheck> {
  const { pr } = options;
  if (!pr || !DEDUPED_ACTIONS.includes(pr.action)) return { skip: false };
  if (options.forceRerun)
    return { skip: false, note: "force-rerun: not checking for an earlier run on this head commit" };
  if (options.runAttempt > 1) {
    return { skip: false, note: `attempt ${options.runAttempt} of this workflow run: running again` };
  }
  if (!options.comment) return { skip: false };
  const found = await options.comment.find(options.apiOptions);
  if (!found.ok || !found.value) return { skip: false };
  const state = readRunState(found.value.body, options.marker);
  if (state?.status !== "done" || state.head !== pr.headSha) return { skip: false };
  if (state.conclusion !== undefined && NOT_DONE.includes(state.conclusion)) {
    return {
      skip: false,
      note: `the earlier run on this head commit ended as ${state.conclusion}: running again`,
    };
  }
  const run = state.run ? ` in workflow run ${state.run}` : "";
  const conclusion = state.conclusion ? ` (${state.conclusion})` : "";
  return {
    skip: true,
    message: `this task already ran on head commit ${pr.headSha.slice(0, 12)}${run}${conclusion}: not running twice on the same commit (re-run the job, or set force-rerun: true, to run again)`,
  };
}
