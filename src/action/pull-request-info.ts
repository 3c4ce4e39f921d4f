/**
 * The pull request an event is about: its number, base and head commits and base branch. Pull
 * request events carry them in the payload (on `pull_request` GITHUB_SHA is the merge commit, not
 * the head, so it is never used); a comment on a pull request (`issue_comment`) does not, so they
 * come from the API (`GET /repos/{owner}/{repo}/pulls/{number}`).
 */
import type { EventContext } from "./event-context.ts";
import type { EventTarget } from "./event-target.ts";
import { type ApiCallOptions, type ApiOutcome, callGitHub, type GitHubClient } from "./github-api.ts";

export interface PullRequestInfo {
  number: number;
  /** The base commit as GitHub reports it (the base branch's tip when the PR was last updated). */
  baseSha: string;
  headSha: string;
  /** The base branch's name, e.g. "main". */
  baseRef: string;
  /** The payload's `action` on pull request events ("opened", "synchronize"...); "" otherwise. */
  action: string;
}

/**
 * The PR of the event: `{ ok: true, value: undefined }` when the event is not about one; a failure
 * when it is (a comment on a PR) but the API could not say which commits it has.
 */
export async function pullRequestInfo(
  ctx: EventContext,
  target: EventTarget | undefined,
  client: () => Promise<GitHubClient | undefined>,
  apiOptions: ApiCallOptions = {},
): Promise<ApiOutcome<PullRequestInfo | undefined>> {
  const payload = isRecord(ctx.payload) ? ctx.payload : {};
  const action = typeof payload.action === "string" ? payload.action : "";
  const fromPayload = parsePull(payload.pull_request, action);
  if (fromPayload) return { ok: true, value: fromPayload };
  if (!target?.isPullRequest) return { ok: true, value: undefined };
  const github = await client();
  if (!github) return { ok: false, message: `no github-token to read pull request #${target.issueNumber}` };
  const outcome = await callGitHub(
    `reading pull request #${target.issueNumber}`,
    () => github.rest.pulls.get({ owner: ctx.owner, repo: ctx.repo, pull_number: target.issueNumber }),
    apiOptions,
  );
  if (!outcome.ok) return outcome;
  const pull = parsePull(outcome.value.data, action);
  if (!pull)
    return {
      ok: false,
      message: `the API's answer for pull request #${target.issueNumber} names no base and head commit`,
    };
  return { ok: true, value: pull };
}

function parsePull(value: unknown, action: string): PullRequestInfo | undefined {
  if (!isRecord(value) || !isRecord(value.base) || !isRecord(value.head)) return undefined;
  const { number } = value;
  const baseSha = value.base.sha;
  const headSha = value.head.sha;
  const baseRef = value.base.ref;
  if (typeof number !== "number" || !isSha(baseSha) || !isSha(headSha) || typeof baseRef !== "string") {
    return undefined;
  }
  return { number, baseSha, headSha, baseRef, action };
}

function isSha(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
