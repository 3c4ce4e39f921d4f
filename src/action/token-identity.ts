/**
 * Who the token writes as, for finding the action's own comments and for the loop guard: the
 * login `GET /user` names (a personal token), else the login GraphQL's `viewer` names (an app's
 * installation token such as GITHUB_TOKEN, which `GET /user` refuses: `github-actions[bot]`,
 * `<app>[bot]`), else unknown, when any Bot account may be the token's.
 */
import type { GitHubClient } from "./github-api.ts";

export interface CommentAuthor {
  login: string;
  type?: string;
}

export interface TokenIdentity {
  /** The token's login; undefined when neither API said. */
  login: string | undefined;
  /** Whether `author` may be the token's identity (with an unknown login: any Bot). */
  matches(author: CommentAuthor | null | undefined): boolean;
}

const known = new WeakMap<GitHubClient, Promise<TokenIdentity>>();

/** Asked once per client; never throws. */
export function tokenIdentity(octokit: GitHubClient): Promise<TokenIdentity> {
  let identity = known.get(octokit);
  if (identity === undefined) {
    identity = lookUp(octokit);
    known.set(octokit, identity);
  }
  return identity;
}

async function lookUp(octokit: GitHubClient): Promise<TokenIdentity> {
  const login =
    (await octokit.rest.users
      .getAuthenticated()
      .then((response) => response.data.login)
      .catch(() => undefined)) ??
    (await octokit
      .graphql<{ viewer?: { login?: unknown } }>("query { viewer { login } }")
      .then((data) => (typeof data.viewer?.login === "string" ? data.viewer.login : undefined))
      .catch(() => undefined));
  if (login) {
    const own = login.toLowerCase();
    return { login, matches: (author) => author?.login.toLowerCase() === own };
  }
  return { login: undefined, matches: (author) => author?.type === "Bot" };
}
