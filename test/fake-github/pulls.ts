/**
 * The fake GitHub's pull requests: `GET /pulls/:n` and `POST /pulls/:n/reviews`. A review's inline
 * comments are checked as GitHub checks them: each must name a line of the new side inside one of
 * the diff's hunks (added or context), else the whole review is refused with a 422.
 */

export interface FakePull {
  number: number;
  base: { sha: string; ref: string };
  head: { sha: string; ref: string };
  /** The PR's diff (merge base...head, unified); without it any line is accepted. */
  diff?: string;
}

/** Pull request #42 as fixtures/pull_request.json has it (the PR fixtures/issue_comment.json is on). */
export const FIXTURE_PULL: FakePull = {
  number: 42,
  base: { sha: "6113728f27ae82c7b1a177c8d03f9e96e0adf246", ref: "main" },
  head: { sha: "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c", ref: "fix-parser" },
};

export interface FakeReviewComment {
  path: string;
  line: number;
  side?: string;
  body: string;
}

export interface FakeReview {
  id: number;
  pullNumber: number;
  body: string;
  event: string;
  commitId?: string;
  comments: FakeReviewComment[];
  user: { login: string; type: "User" | "Bot" };
  html_url: string;
}

/** The PR as `GET /repos/{o}/{r}/pulls/{n}` answers it (the fields the action reads, and a few more). */
export function pullResponse(pull: FakePull, owner: string, repo: string): Record<string, unknown> {
  const repoObject = { name: repo, full_name: `${owner}/${repo}`, fork: false };
  return {
    number: pull.number,
    state: "open",
    html_url: `https://github.com/${owner}/${repo}/pull/${pull.number}`,
    base: { ...pull.base, repo: repoObject },
    head: { ...pull.head, repo: repoObject },
  };
}

/** Checks a review request's comments; returns the 422 message, or undefined when GitHub would accept it. */
export function refuseReview(pull: FakePull, comments: FakeReviewComment[]): string | undefined {
  if (pull.diff === undefined) return undefined;
  const lines = newSideLines(pull.diff);
  for (const comment of comments) {
    if ((comment.side ?? "RIGHT") !== "RIGHT") continue;
    if (!lines.get(comment.path)?.has(comment.line)) {
      return "Unprocessable Entity: Pull request review thread line must be part of the diff";
    }
  }
  return undefined;
}

/** Lines of each file's new side that a hunk of `diff` shows (added or context). */
function newSideLines(diff: string): Map<string, Set<number>> {
  const files = new Map<string, Set<number>>();
  let current: Set<number> | undefined;
  let line = 0;
  for (const text of diff.split("\n")) {
    if (text.startsWith("+++ ")) {
      const name = text.slice(4).replace(/\t$/, "");
      current = name === "/dev/null" ? undefined : new Set();
      if (current) files.set(name.replace(/^b\//, ""), current);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      line = Number(hunk[1]);
      continue;
    }
    if (!current || line === 0) continue;
    if (text.startsWith("+") || text.startsWith(" ")) current.add(line++);
    else if (text.startsWith("diff --git")) line = 0;
  }
  return files;
}
