/**
 * Which pull request (or issue) an event is about, from the raw event payload; who wrote the
 * triggering text is `triggerAuthors` (trigger-trust.ts). Parsed from `unknown` because the
 * payload is whatever the runner wrote to disk.
 */

/** Events on which the action comments. */
export const COMMENT_EVENTS: readonly string[] = [
  "pull_request",
  "pull_request_target",
  "issue_comment",
  "pull_request_review",
  "pull_request_review_comment",
];

export interface EventTarget {
  /** The PR or issue number that gets the comment. */
  issueNumber: number;
  isPullRequest: boolean;
  /** The PR's head is in another repository (a fork). Known for pull request events only. */
  fromFork?: boolean;
}

/** The comment target of an event, or `undefined` when the event has none (push, workflow_dispatch...). */
export function eventTarget(eventName: string, payload: unknown): EventTarget | undefined {
  if (!COMMENT_EVENTS.includes(eventName) || !isRecord(payload)) return undefined;
  const pr = payload.pull_request;
  const issue = payload.issue;
  const prNumber = isRecord(pr) ? asNumber(pr.number) : undefined;
  const issueNumber = prNumber ?? (isRecord(issue) ? asNumber(issue.number) : undefined);
  if (issueNumber === undefined) return undefined;
  const target: EventTarget = {
    issueNumber,
    isPullRequest: prNumber !== undefined || (isRecord(issue) && isRecord(issue.pull_request)),
  };
  if (isRecord(pr) && isRecord(pr.head) && isRecord(pr.base)) {
    const head = isRecord(pr.head.repo) ? pr.head.repo.full_name : undefined;
    const base = isRecord(pr.base.repo) ? pr.base.repo.full_name : undefined;
    // A deleted fork has a null head repo: still not this repository.
    if (typeof base === "string") target.fromFork = head !== base;
  }
  return target;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}
