/**
 * Who may trigger a run by commenting: only users with write, maintain or admin permission on the
 * repository, as the API reports it (a comment payload's author_association is not enough).
 */
import { type ApiCallOptions, callGitHub, type GitHubClient } from "./github-api.ts";

/** Role names that may trigger a run. */
export const TRIGGER_ROLES: readonly string[] = ["admin", "maintain", "write"];

export interface PermissionCheck {
  allowed: boolean;
  /** The role reported (`role_name`, else `permission`), or "unknown" when the API failed. */
  permission: string;
  /** One line for the log. */
  message: string;
}

/** Asks GitHub for `username`'s permission on `owner/repo`. Fails closed: an API error refuses. */
export async function checkCommenterPermission(
  octokit: GitHubClient,
  options: ApiCallOptions & { owner: string; repo: string; username: string },
): Promise<PermissionCheck> {
  const { owner, repo, username } = options;
  if (username === "") {
    return { allowed: false, permission: "unknown", message: "the event names no commenter; not running" };
  }
  const outcome = await callGitHub(
    `reading the permission of @${username}`,
    () => octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username }),
    options,
  );
  if (!outcome.ok) {
    return {
      allowed: false,
      permission: "unknown",
      message: `${outcome.message} Not running (fail closed).`,
    };
  }
  const { permission, role_name: roleName } = outcome.value.data;
  const role = roleName || permission;
  const allowed = TRIGGER_ROLES.includes(role) || TRIGGER_ROLES.includes(permission);
  const message = allowed
    ? `@${username} has ${role} permission on ${owner}/${repo}: running`
    : `@${username} has ${role} permission on ${owner}/${repo}; a run needs write or admin: not running`;
  return { allowed, permission: role, message };
}
