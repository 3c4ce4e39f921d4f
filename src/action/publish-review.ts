/**
 * The review comments of the run (spec `review.inline`) as one pull-request review of type
 * COMMENT: each comment on a line inside the PR's diff (a hunk's new side, added or context: what
 * GitHub accepts) becomes an inline comment on that line; the others go into the review's text,
 * with their file and line. Every text is neutralised like the sticky comment (comment-hygiene.ts)
 * and carries the task's hidden marker, so the loop guard knows the events they cause. No review
 * is posted when there is no comment. When GitHub refuses the inline comments anyway (422: the
 * diff moved on), the review is posted again with all of them in its text.
 */
import * as core from "@actions/core";
import { commentMarker } from "./comment-body.ts";
import { neutralizeComment } from "./comment-hygiene.ts";
import type { CommentableLines } from "./diff-lines.ts";
import { type ApiCallOptions, callGitHub, type GitHubClient } from "./github-api.ts";
import type { PullRequestInfo } from "./pull-request-info.ts";
import type { ActionRunResult } from "./runner-types.ts";

type ReviewComment = NonNullable<ActionRunResult["review"]>["comments"][number];

/** Characters of the review's text: GitHub's comment limit, with room to spare. */
const MAX_REVIEW_BODY = 60_000;

export interface ReviewTarget {
  github: GitHubClient;
  owner: string;
  repo: string;
  pr: PullRequestInfo;
  /** The lines of the PR's diff; undefined when the diff was not computed (then nothing goes inline). */
  lines: CommentableLines | undefined;
  taskName: string;
  /** Hosts links may point to besides github.com. */
  hosts: readonly string[];
  apiOptions?: ApiCallOptions;
}

export interface ReviewPlan {
  body: string;
  inline: Array<{ path: string; line: number; side: "RIGHT"; body: string }>;
}

/** Splits the comments into inline ones and the review's text. */
export function planReview(
  review: NonNullable<ActionRunResult["review"]>,
  target: Pick<ReviewTarget, "lines" | "taskName" | "hosts">,
): ReviewPlan {
  const marker = commentMarker(target.taskName);
  const clean = (text: string) => neutralizeComment(text, target.hosts);
  const inline: ReviewPlan["inline"] = [];
  const elsewhere: ReviewComment[] = [];
  for (const comment of review.comments) {
    const ranges = target.lines?.[comment.path] ?? [];
    if (ranges.some(([first, last]) => comment.line >= first && comment.line <= last)) {
      inline.push({
        path: comment.path,
        line: comment.line,
        side: "RIGHT",
        body: `${marker}\n${clean(comment.body)}`,
      });
    } else {
      elsewhere.push(comment);
    }
  }
  return { body: reviewBody(marker, elsewhere, review, inline.length, clean), inline };
}

function reviewBody(
  marker: string,
  elsewhere: ReviewComment[],
  review: NonNullable<ActionRunResult["review"]>,
  inlineCount: number,
  clean: (text: string) => string,
): string {
  const parts = [
    marker,
    `**agent-run** left ${inlineCount} comment${inlineCount === 1 ? "" : "s"} on the diff's lines.`,
  ];
  if (elsewhere.length > 0) {
    parts.push("", `On lines outside the diff (${elsewhere.length}):`);
    for (const comment of elsewhere) {
      const where = `\`${comment.path.replace(/`/g, "'")}:${comment.line}\``;
      parts.push("", `**${where}**`, "", clean(comment.body));
    }
  }
  if (review.refused > 0) {
    parts.push(
      "",
      `_${review.refused} more comment(s) were refused past review.max\\_comments (${review.maxComments})._`,
    );
  }
  const body = parts.join("\n");
  return body.length <= MAX_REVIEW_BODY
    ? body
    : `${body.slice(0, MAX_REVIEW_BODY)}\n\n_The rest is cut: the run's review.json has every comment._`;
}

/** Posts the review; returns its URL, "" when none was posted. API failures are warnings. */
export async function postReview(
  target: ReviewTarget,
  review: NonNullable<ActionRunResult["review"]>,
): Promise<string> {
  if (review.comments.length === 0) {
    core.info("agent-run: no review comments, so no review was posted");
    return "";
  }
  const plan = planReview(review, target);
  const { github, owner, repo, pr } = target;
  const post = (body: string, comments: ReviewPlan["inline"]) =>
    callGitHub(
      `posting a review on #${pr.number}`,
      () =>
        github.rest.pulls.createReview({
          owner,
          repo,
          pull_number: pr.number,
          commit_id: pr.headSha,
          event: "COMMENT",
          body,
          comments,
        }),
      target.apiOptions,
    );
  let outcome = await post(plan.body, plan.inline);
  if (!outcome.ok && outcome.status === 422 && plan.inline.length > 0) {
    core.warning(
      `agent-run: GitHub refused the inline review comments (${outcome.message}); posting them in the review's text`,
    );
    const all = planReview(review, { ...target, lines: {} });
    outcome = await post(all.body, []);
  }
  if (!outcome.ok) {
    core.warning(outcome.message, { title: "agent-run: review not posted" });
    return "";
  }
  core.info(
    `agent-run: review posted with ${plan.inline.length} inline comment(s): ${outcome.value.data.html_url}`,
  );
  return outcome.value.data.html_url;
}
