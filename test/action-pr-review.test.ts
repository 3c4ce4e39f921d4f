/**
 * Inline review (spec `review: { inline: true, max_comments: N }`), through the built action
 * against the fake GitHub, which refuses a review comment on a line outside the PR's diff as
 * GitHub does: comments on the diff's lines become inline comments of one COMMENT review, the
 * others go into its body, never more than N are accepted, every text is neutralised and carries
 * the hidden marker; no review is posted when there is nothing to say.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type FakeGitHub, startFakeGitHub } from "./fake-github/server.ts";
import { git, type Payload, runPrStep } from "./helpers/pr-step.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

const TASK = `name: review-task
model: anthropic:claude-sonnet-4-6
prompt: Review the pull request.
tools: [read]
review: { inline: true, max_comments: 2 }
`;
const MARKER = "<!-- agent-run:task=review-task -->";

let llm: MockLlm | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await llm?.close();
  await github?.close();
  llm = undefined;
  github = undefined;
});

/** A checkout at the PR's head: app.txt (40 lines) with line 30 changed; the diff's hunk shows lines 27 to 33. */
async function checkout() {
  const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-pr-review-"));
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
  await writeFile(path.join(dir, "app.txt"), `${lines.join("\n")}\n`);
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", ".");
  git(dir, "commit", "-q", "-m", "base");
  const baseSha = git(dir, "rev-parse", "HEAD");
  lines[29] = "line 30, changed by the PR";
  await writeFile(path.join(dir, "app.txt"), `${lines.join("\n")}\n`);
  git(dir, "commit", "-q", "-am", "the PR");
  const headSha = git(dir, "rev-parse", "HEAD");
  const diff = git(dir, "diff", baseSha, headSha);
  const pull = { number: 42, base: { sha: baseSha, ref: "main" }, head: { sha: headSha, ref: "fix" }, diff };
  const editPayload = (payload: Payload) => {
    if (!payload.pull_request) throw new Error("no pull_request in the fixture");
    payload.pull_request.base.sha = baseSha;
    payload.pull_request.head.sha = headSha;
  };
  return { dir, pull, editPayload, headSha };
}

const comment = (line: number, body: string) => ({
  name: "add_review_comment",
  arguments: { path: "app.txt", line, body },
});

describe("inline review", { timeout: 60_000 }, () => {
  test("a comment on a diff line goes inline, one outside goes to the body, the third is refused", async () => {
    const { dir, pull, editPayload, headSha } = await checkout();
    const script: MockReply[] = [
      {
        toolCalls: [
          comment(30, "@octocat this breaks parsing; fixes #1"),
          comment(2, "An old helper here is unused."),
          comment(31, "A third point."),
        ],
        usage: { input: 300, output: 60 },
      },
      { text: "Two comments left.", usage: { input: 400, output: 10 } },
    ];
    llm = await startMockLlm({ script });
    github = await startFakeGitHub({ pulls: [pull] });

    const run = await runPrStep({ llm, github, task: TASK, workspace: dir, editPayload });

    expect(run.exitCode).toBe(0);
    expect(github.reviews).toHaveLength(1);
    const review = github.reviews[0]!;
    expect(review).toMatchObject({ event: "COMMENT", commitId: headSha, pullNumber: 42 });
    expect(review.comments).toHaveLength(1);
    const inline = review.comments[0]!;
    expect(inline).toMatchObject({ path: "app.txt", line: 30, side: "RIGHT" });
    expect(inline.body.startsWith(`${MARKER}\n`)).toBe(true);
    expect(inline.body).toContain("this breaks parsing");
    expect(inline.body).not.toContain("@octocat");
    expect(inline.body).not.toMatch(/fixes #1/);
    expect(review.body.startsWith(`${MARKER}\n`)).toBe(true);
    expect(review.body).toContain("`app.txt:2`");
    expect(review.body).toContain("An old helper here is unused.");
    expect(review.body).not.toContain("A third point.");
    expect(review.body).toContain("1 more comment(s) were refused");
    expect(run.outputs["review-url"]).toBe(review.html_url);
    // The model was told: the third call is an error result.
    expect(JSON.stringify(llm.requests[1]?.body.messages)).toContain("limit of 2 review comments is reached");
    // The sticky comment is still there, apart from the review.
    expect(github.comments).toHaveLength(1);
  });

  test("nothing to say: no review is posted and review-url is empty", async () => {
    const { dir, pull, editPayload } = await checkout();
    llm = await startMockLlm({ script: [{ text: "Looks good.", usage: { input: 100, output: 5 } }] });
    github = await startFakeGitHub({ pulls: [pull] });

    const run = await runPrStep({ llm, github, task: TASK, workspace: dir, editPayload });

    expect(run.exitCode).toBe(0);
    expect(github.reviews).toEqual([]);
    expect(github.requests.filter((r) => r.path.endsWith("/reviews"))).toEqual([]);
    expect(run.outputs["review-url"]).toBe("");
    expect(run.stdout).toContain("no review comments, so no review was posted");
  });

  test("comment: false posts no review either", async () => {
    const { dir, pull, editPayload } = await checkout();
    llm = await startMockLlm({
      script: [
        { toolCalls: [comment(30, "A point.")], usage: { input: 100, output: 5 } },
        { text: "Done.", usage: { input: 100, output: 5 } },
      ],
    });
    github = await startFakeGitHub({ pulls: [pull] });

    const run = await runPrStep({
      llm,
      github,
      task: TASK,
      workspace: dir,
      editPayload,
      inputs: { comment: "false" },
    });

    expect(run.exitCode).toBe(0);
    expect(github.reviews).toEqual([]);
    expect(run.outputs["review-url"]).toBe("");
  });
});
