/**
 * The loop guard: the action never runs on what it caused itself, so a workflow cannot trigger
 * itself (comment, run, comment...). Skipped, in this order:
 * - a comment or review whose body carries agent-run's hidden marker (`<!-- agent-run:`), anywhere:
 *   the sticky comment, a review and its inline comments all carry it;
 * - a comment or review by the token's own identity (token-identity.ts: with a personal token,
 *   that account's comments never trigger a run);
 * - a push (`push`, `synchronize`) sent by the token's identity when that is a bot (an app token);
 * - a push (`push`, or `synchronize` of a pull request) whose head commit carries the trailer
 *   `Agent-Run: <task>`, which a step committing the agent's patch adds.
 */
import { git } from "./checkout-trust.ts";
import type { EventContext } from "./event-context.ts";
import { type ApiCallOptions, callGitHub, type GitHubClient } from "./github-api.ts";
import { tokenIdentity } from "./token-identity.ts";
import { triggerAuthors } from "./trigger-trust.ts";

/** The commit trailer that marks a commit made from an agent-run patch: `Agent-Run: <task name>`. */
export const COMMIT_TRAILER = "Agent-Run";
/** What every comment, review and inline comment the action writes starts with. */
export const HIDDEN_MARKER_PREFIX = "<!-- agent-run:";

export type LoopCheck = { skip: true; message: string } | { skip: false };

export interface LoopGuardOptions {
  ctx: EventContext;
  client: () => Promise<GitHubClient | undefined>;
  apiOptions?: ApiCallOptions;
}

/**
 * The check that needs no API call: a comment or review carrying the hidden marker. Done first,
 * before anything asks GitHub about the event.
 */
export function checkOwnMarker(payload: unknown): LoopCheck {
  const record = isRecord(payload) ? payload : {};
  for (const [key, role] of [
    ["comment", "comment"],
    ["review", "review"],
  ] as const) {
    const item = record[key];
    if (isRecord(item) && typeof item.body === "string" && item.body.includes(HIDDEN_MARKER_PREFIX)) {
      return {
        skip: true,
        message: `the ${role} carries agent-run's hidden marker, so agent-run wrote it: not running on its own ${role}`,
      };
    }
  }
  return { skip: false };
}

/**
 * The checks that may ask GitHub (who the token is, a pushed commit's message): done once the
 * trigger passed the trust gate, so a refused trigger costs one API call. Never throws: a lookup
 * that fails lets the run go on (the per-head-commit dedupe still holds).
 */
export async function checkLoopGuard(options: LoopGuardOptions): Promise<LoopCheck> {
  const { ctx } = options;
  const payload = isRecord(ctx.payload) ? ctx.payload : {};
  const marked = checkOwnMarker(payload);
  if (marked.skip) return marked;

  const authors = triggerAuthors(payload);
  const sender = isRecord(payload.sender) ? payload.sender : undefined;
  const senderLogin = typeof sender?.login === "string" ? sender.login : "";
  // Only a push by the token's bot counts: a PR the same app opened is still reviewed.
  const isPush = ctx.eventName === "push" || payload.action === "synchronize";
  const senderIsBot = isPush && (sender?.type === "Bot" || /\[bot\]$/i.test(senderLogin));
  if (authors.length > 0 || senderIsBot) {
    const github = await options.client();
    const identity = github ? await tokenIdentity(github) : undefined;
    for (const author of authors) {
      if (identity?.matches(author)) {
        const who = identity.login ? `@${identity.login}, the identity of this step's github-token` : "a bot";
        return {
          skip: true,
          message: `the ${author.role} @${author.login} is ${who}: not running on the action's own ${author.role.split(" ")[0]}`,
        };
      }
    }
    if (senderIsBot && identity?.login && identity.login.toLowerCase() === senderLogin.toLowerCase()) {
      return {
        skip: true,
        message: `the event was caused by @${senderLogin}, the identity of this step's github-token: not running on its own push`,
      };
    }
  }

  const pushed = await pushedCommit(options, payload);
  if (pushed && hasTrailer(pushed.message)) {
    return {
      skip: true,
      message: `the pushed commit ${pushed.sha.slice(0, 12)} carries the '${COMMIT_TRAILER}:' trailer, so an agent-run step made it: not running on it`,
    };
  }
  return { skip: false };
}

/** Whether a commit message has an `Agent-Run:` trailer line. */
export function hasTrailer(message: string): boolean {
  return new RegExp(`^${COMMIT_TRAILER}:[ \\t]*\\S`, "im").test(message);
}

/** The commit a push made: the head of a `push`, the new head of a `synchronize`; undefined for other events. */
async function pushedCommit(
  options: LoopGuardOptions,
  payload: Record<string, unknown>,
): Promise<{ sha: string; message: string } | undefined> {
  const { ctx } = options;
  if (ctx.eventName === "push") {
    const head = isRecord(payload.head_commit) ? payload.head_commit : undefined;
    if (typeof head?.id === "string" && typeof head.message === "string") {
      return { sha: head.id, message: head.message };
    }
    return undefined;
  }
  const pr = isRecord(payload.pull_request) ? payload.pull_request : undefined;
  const headSha = isRecord(pr?.head) && typeof pr.head.sha === "string" ? pr.head.sha : undefined;
  if (payload.action !== "synchronize" || headSha === undefined || !/^[0-9a-f]{40,64}$/.test(headSha)) {
    return undefined;
  }
  const local = await git(["log", "-1", "--format=%B", headSha, "--"], { cwd: ctx.workspace });
  if (!local.failed) return { sha: headSha, message: local.stdout };
  const github = await options.client();
  if (!github) return undefined;
  const outcome = await callGitHub(
    `reading commit ${headSha.slice(0, 12)}`,
    () => github.rest.repos.getCommit({ owner: ctx.owner, repo: ctx.repo, ref: headSha }),
    { ...options.apiOptions, maxRetries: 0 },
  );
  return outcome.ok ? { sha: headSha, message: outcome.value.data.commit.message } : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
