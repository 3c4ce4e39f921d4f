/**
 * What code the run would act on. On `pull_request_target` and `workflow_run` the job holds the
 * repository's secrets and a write token; checking out a pull request's head there hands them to
 * whoever wrote the PR, so the action refuses such a checkout unless the workflow opts in
 * (`allow-untrusted-checkout: true`). The rule: the checkout is trusted when its HEAD is the
 * commit the workflow itself runs from (`GITHUB_SHA`, or the PR's base commit on
 * pull_request_target) and no tracked file differs from HEAD; anything else (the PR head, a merge
 * ref, a commit that cannot be read) is untrusted.
 */
import type { GitOptions, GitResult } from "../output/git.ts";

/** git, isolated from user config; loaded on first use, so events that never need it start faster. */
export async function git(args: string[], options: GitOptions): Promise<GitResult> {
  const { git: run } = await import("../output/git.ts");
  return run(args, options);
}

/** Events that run with secrets and a write token while a pull request's code may be checked out. */
export const PRIVILEGED_PR_EVENTS: readonly string[] = ["pull_request_target", "workflow_run"];

/**
 * The commit whose task spec and hook scripts the run uses, for events where the checkout may
 * hold a pull request's code or a comment trigger's: `GITHUB_SHA` (the base branch on
 * pull_request_target, the default branch on issue_comment, commit_comment, discussion_comment and
 * workflow_run), the PR's base commit on pull_request_review and pull_request_review_comment
 * (where GITHUB_SHA is the PR's merge commit). `undefined` for other events: their checkout is
 * the workflow's own.
 */
export function trustedCommit(
  eventName: string,
  payload: unknown,
  env: NodeJS.ProcessEnv,
): string | undefined {
  switch (eventName) {
    case "pull_request_target":
    case "issue_comment":
    case "commit_comment":
    case "discussion_comment":
    case "workflow_run":
      return env.GITHUB_SHA || undefined;
    case "pull_request_review":
    case "pull_request_review_comment":
      return prSha(payload, "base");
    default:
      return undefined;
  }
}

export interface CheckoutCheck {
  allowed: boolean;
  /** One line for the log. */
  message: string;
}

/**
 * Checks the checkout in `dir` (the agent's workspace) for `PRIVILEGED_PR_EVENTS`; other events
 * pass. An untrusted checkout passes only with `allowUntrusted`, and then with a message to warn.
 */
export async function checkCheckout(options: {
  eventName: string;
  payload: unknown;
  env: NodeJS.ProcessEnv;
  dir: string;
  allowUntrusted: boolean;
}): Promise<CheckoutCheck> {
  const { eventName, payload, env, dir, allowUntrusted } = options;
  if (!PRIVILEGED_PR_EVENTS.includes(eventName)) return { allowed: true, message: "" };
  const trusted = [env.GITHUB_SHA, eventName === "pull_request_target" ? prSha(payload, "base") : undefined]
    .filter((sha): sha is string => typeof sha === "string" && sha !== "")
    .map((sha) => sha.toLowerCase());
  const why = await untrustedReason(dir, trusted, payload);
  if (why === undefined) return { allowed: true, message: "" };
  if (allowUntrusted) {
    return {
      allowed: true,
      message: `${eventName}: ${why}; running anyway because allow-untrusted-checkout is true (the agent and its hooks act on that code with this job's secrets)`,
    };
  }
  return {
    allowed: false,
    message: `${eventName}: ${why}. A run here holds this repository's secrets and a write token; check out the base commit, or set allow-untrusted-checkout: true to accept the risk. Not running`,
  };
}

async function untrustedReason(
  dir: string,
  trusted: string[],
  payload: unknown,
): Promise<string | undefined> {
  const head = await git(["rev-parse", "--verify", "HEAD"], { cwd: dir });
  if (head.failed)
    return `cannot tell which commit is checked out in ${dir} (${oneLine(head.stderr || head.shortMessage)})`;
  const sha = head.stdout.trim().toLowerCase();
  if (!trusted.includes(sha)) {
    const prHead = prSha(payload, "head") ?? workflowRunHead(payload);
    const what =
      prHead !== undefined && prHead.toLowerCase() === sha ? "the pull request's head" : "a commit";
    return `the checkout is ${what} (${sha.slice(0, 12)}), not the workflow's own commit (${trusted.map((s) => s.slice(0, 12)).join(" or ") || "unknown"})`;
  }
  const status = await git(["status", "--porcelain", "--untracked-files=no"], { cwd: dir });
  if (status.failed) return `cannot read the checkout's status in ${dir}`;
  if (status.stdout.trim() !== "") {
    const first = status.stdout.trim().split("\n")[0]?.trim() ?? "";
    return `tracked files differ from the checked-out commit (${first}…): code from elsewhere was put in place`;
  }
  return undefined;
}

function prSha(payload: unknown, side: "head" | "base"): string | undefined {
  const pr = isRecord(payload) ? payload.pull_request : undefined;
  const ref = isRecord(pr) ? pr[side] : undefined;
  return isRecord(ref) && typeof ref.sha === "string" && ref.sha !== "" ? ref.sha : undefined;
}

function workflowRunHead(payload: unknown): string | undefined {
  const run = isRecord(payload) ? payload.workflow_run : undefined;
  return isRecord(run) && typeof run.head_sha === "string" ? run.head_sha : undefined;
}

function oneLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
