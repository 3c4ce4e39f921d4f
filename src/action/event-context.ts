/**
 * The workflow run's context, read from the variables the Actions runner sets (GITHUB_*), at call
 * time rather than at import time like `@actions/github`'s `context`, so one process can be tested
 * against several environments.
 */
import { readFileSync } from "node:fs";

export interface EventContext {
  eventName: string;
  /** The parsed event payload; `{}` when GITHUB_EVENT_PATH is unset or unreadable. */
  payload: unknown;
  owner: string;
  repo: string;
  /** Default: https://api.github.com. */
  apiUrl: string;
  /** The GitHub server, without a trailing slash. Default: https://github.com. */
  serverUrl: string;
  /** Link to this workflow run, when the runner says which one it is. */
  runUrl?: string;
  /** Where the repository is checked out. Default: the process's cwd. */
  workspace: string;
}

export function readEventContext(env: NodeJS.ProcessEnv = process.env): EventContext {
  const [owner = "", repo = ""] = (env.GITHUB_REPOSITORY ?? "").split("/");
  let payload: unknown = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8"));
    } catch {
      payload = {};
    }
  }
  const serverUrl = (env.GITHUB_SERVER_URL ?? "https://github.com").replace(/\/$/, "");
  return {
    eventName: env.GITHUB_EVENT_NAME ?? "",
    payload,
    owner,
    repo,
    apiUrl: (env.GITHUB_API_URL ?? "https://api.github.com").replace(/\/$/, ""),
    serverUrl,
    runUrl:
      env.GITHUB_RUN_ID && owner
        ? `${serverUrl}/${owner}/${repo}/actions/runs/${env.GITHUB_RUN_ID}`
        : undefined,
    workspace: env.GITHUB_WORKSPACE || process.cwd(),
  };
}
