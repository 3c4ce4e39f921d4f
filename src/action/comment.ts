/**
 * The sticky PR comment: one per task per PR, found by its hidden marker across every page of
 * the PR's comments, updated in place, created only when absent. Only a comment that starts with
 * the marker (as `buildCommentBody` writes it) and was written by the token's own identity counts:
 * a summary quoting another task's marker, or a user planting one, is never edited.
 */
import { type ApiCallOptions, type ApiOutcome, callGitHub, type GitHubClient } from "./github-api.ts";

export interface UpsertCommentOptions extends ApiCallOptions {
  owner: string;
  repo: string;
  issueNumber: number;
  /** From `commentMarker`; a comment of the token's identity whose body starts with it is this task's comment. */
  marker: string;
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

/**
 * Finds the first comment carrying `marker` (paginated, 100 a page) and updates it, or creates one
 * (unless `createIfMissing` is false).
 * Never throws: API failures come back as `{ ok: false, message }`.
 */
export async function upsertComment(
  octokit: GitHubClient,
  options: UpsertCommentOptions,
): Promise<ApiOutcome<UpsertedComment>> {
  const { owner, repo, issueNumber, marker, body } = options;
  const found = await callGitHub(
    `listing the comments of #${issueNumber}`,
    () => findMarkedComment(octokit, owner, repo, issueNumber, marker),
    options,
  );
  if (!found.ok) return found;
  const existing = found.value;
  if (existing) {
    if (existing.body === body)
      return { ok: true, value: { action: "unchanged", id: existing.id, url: existing.url } };
    const updated = await callGitHub(
      `updating comment ${existing.id} on #${issueNumber}`,
      () => octokit.rest.issues.updateComment({ owner, repo, comment_id: existing.id, body }),
      options,
    );
    if (!updated.ok) return updated;
    return {
      ok: true,
      value: { action: "updated", id: updated.value.data.id, url: updated.value.data.html_url },
    };
  }
  if (options.createIfMissing === false) return { ok: true, value: { action: "absent", id: 0, url: "" } };
  const created = await callGitHub(
    `creating a comment on #${issueNumber}`,
    () => octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body }),
    options,
  );
  if (!created.ok) return created;
  return {
    ok: true,
    value: { action: "created", id: created.value.data.id, url: created.value.data.html_url },
  };
}

interface MarkedComment {
  id: number;
  url: string;
  body: string;
}

async function findMarkedComment(
  octokit: GitHubClient,
  owner: string,
  repo: string,
  issueNumber: number,
  marker: string,
): Promise<MarkedComment | undefined> {
  const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
    owner,
    repo,
    issue_number: issueNumber,
    per_page: 100,
  });
  let isOwn: ((author: CommentAuthor | null | undefined) => boolean) | undefined;
  for await (const page of pages) {
    for (const comment of page.data) {
      if (!comment.body?.startsWith(marker)) continue;
      isOwn ??= await ownAuthor(octokit);
      if (isOwn(comment.user)) return { id: comment.id, url: comment.html_url, body: comment.body };
    }
  }
  return undefined;
}

interface CommentAuthor {
  login: string;
  type?: string;
}

/**
 * Who the token writes as: the login `GET /user` names (a personal token), else (an app's
 * installation token such as GITHUB_TOKEN, which that endpoint refuses) any Bot account.
 */
async function ownAuthor(
  octokit: GitHubClient,
): Promise<(author: CommentAuthor | null | undefined) => boolean> {
  const login = await octokit.rest.users
    .getAuthenticated()
    .then((response) => response.data.login)
    .catch(() => undefined);
  if (login) return (author) => author?.login.toLowerCase() === login.toLowerCase();
  return (author) => author?.type === "Bot";
}
