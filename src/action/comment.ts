/**
 * The sticky PR comment: one per task per PR, found by its hidden marker across every page of
 * the PR's comments, updated in place, created only when absent. Only a comment that starts with
 * the marker (as `buildCommentBody` writes it) and was written by the token's own identity
 * (token-identity.ts) counts: a summary quoting another task's marker, or a user planting one, is
 * never edited. `stickyComment` remembers what it found and wrote, so the dedupe check, the
 * progress edits and the final summary list the comments once.
 */
import { type ApiCallOptions, type ApiOutcome, callGitHub, type GitHubClient } from "./github-api.ts";
import { tokenIdentity } from "./token-identity.ts";

export interface CommentTarget {
  owner: string;
  repo: string;
  issueNumber: number;
  /** From `commentMarker`; a comment of the token's identity whose body starts with it is this task's comment. */
  marker: string;
}

export interface UpsertCommentOptions extends ApiCallOptions, CommentTarget {
  body: string;
  /** When false, an existing comment is updated but none is created. Default: true. */
  createIfMissing?: boolean;
}

export interface UpsertedComment {
  /** "absent": no comment carried the marker and `createIfMissing` was false (`id` 0, `url` ""). */
  action: "created" | "updated" | "unchanged" | "absent";
  id: number;
  url: string;
}

export interface MarkedComment {
  id: number;
  url: string;
  body: string;
}

export interface StickyComment {
  /** The task's comment, looked up once (later calls answer from memory); undefined when there is none. */
  find(options?: ApiCallOptions): Promise<ApiOutcome<MarkedComment | undefined>>;
  /** Updates the comment, or creates it unless `createIfMissing` is false. Never throws. */
  write(
    body: string,
    options?: ApiCallOptions & { createIfMissing?: boolean },
  ): Promise<ApiOutcome<UpsertedComment>>;
}

export function stickyComment(octokit: GitHubClient, target: CommentTarget): StickyComment {
  const { owner, repo, issueNumber } = target;
  let found: MarkedComment | undefined;
  let looked = false;
  const find = async (options: ApiCallOptions = {}): Promise<ApiOutcome<MarkedComment | undefined>> => {
    if (looked) return { ok: true, value: found };
    const outcome = await callGitHub(
      `listing the comments of #${issueNumber}`,
      () => findMarkedComment(octokit, target),
      options,
    );
    if (outcome.ok) {
      looked = true;
      found = outcome.value;
    }
    return outcome;
  };
  return {
    find,
    async write(body, options = {}) {
      const existing = await find(options);
      if (!existing.ok) return existing;
      const comment = existing.value;
      if (comment) {
        if (comment.body === body)
          return { ok: true, value: { action: "unchanged", id: comment.id, url: comment.url } };
        const updated = await callGitHub(
          `updating comment ${comment.id} on #${issueNumber}`,
          () => octokit.rest.issues.updateComment({ owner, repo, comment_id: comment.id, body }),
          options,
        );
        if (!updated.ok) return updated;
        found = { id: updated.value.data.id, url: updated.value.data.html_url, body };
        return { ok: true, value: { action: "updated", id: found.id, url: found.url } };
      }
      if (options.createIfMissing === false) return { ok: true, value: { action: "absent", id: 0, url: "" } };
      const created = await callGitHub(
        `creating a comment on #${issueNumber}`,
        () => octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body }),
        options,
      );
      if (!created.ok) return created;
      found = { id: created.value.data.id, url: created.value.data.html_url, body };
      return { ok: true, value: { action: "created", id: found.id, url: found.url } };
    },
  };
}

/**
 * Finds the first comment carrying `marker` (paginated, 100 a page) and updates it, or creates one
 * (unless `createIfMissing` is false).
 * Never throws: API failures come back as `{ ok: false, message }`.
 */
export async function upsertComment(
  octokit: GitHubClient,
  options: UpsertCommentOptions,
): Promise<ApiOutcome<UpsertedComment>> {
  const { body, createIfMissing, ...rest } = options;
  return stickyComment(octokit, rest).write(body, {
    ...rest,
    ...(createIfMissing !== undefined && { createIfMissing }),
  });
}

async function findMarkedComment(
  octokit: GitHubClient,
  { owner, repo, issueNumber, marker }: CommentTarget,
): Promise<MarkedComment | undefined> {
  const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
    owner,
    repo,
    issue_number: issueNumber,
    per_page: 100,
  });
  for await (const page of pages) {
    for (const comment of page.data) {
      if (!comment.body?.startsWith(marker)) continue;
      const identity = await tokenIdentity(octokit);
      if (identity.matches(comment.user))
        return { id: comment.id, url: comment.html_url, body: comment.body };
    }
  }
  return undefined;
}
