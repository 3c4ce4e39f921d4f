/**
 * Every event whose payload names the author of a comment, review or discussion asks GitHub for
 * that author's permission before anything runs, whatever the event is called; an event type the
 * action does not know is untrusted. Through the built action, against the fake GitHub API.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runActionBundle } from "./fake-github/actions-runner.ts";
import { type FakeGitHub, type Role, startFakeGitHub } from "./fake-github/server.ts";
import { BUILT_ACTION } from "./helpers/built.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

const TASK = `name: comment-events
model: anthropic:claude-sonnet-4-6
prompt: "Say done. {{ vars.comment_body }}"
tools: [read, bash]
`;
const user = (login: string) => ({ login, type: "User" });
const ZERO_SHA = "0".repeat(40);
const pr = (number: number) => ({
  number,
  head: { sha: ZERO_SHA, repo: { full_name: "octo-org/octo-repo" } },
  base: { sha: ZERO_SHA, repo: { full_name: "octo-org/octo-repo" } },
});

/** Payloads as GitHub sends them (the parts the action reads), the text written by `author`. */
const EVENTS: Record<string, (author: string) => unknown> = {
  commit_comment: (author) => ({
    action: "created",
    comment: { id: 1, commit_id: "a".repeat(40), body: "/agent-run go", user: user(author) },
    sender: user(author),
  }),
  discussion_comment: (author) => ({
    action: "created",
    discussion: { number: 7, title: "Idea", body: "text", user: user("maintainer") },
    comment: { id: 2, body: "/agent-run go", user: user(author) },
    sender: user(author),
  }),
  discussion: (author) => ({
    action: "created",
    discussion: { number: 8, title: "/agent-run go", body: "please", user: user(author) },
    sender: user(author),
  }),
  pull_request_review: (author) => ({
    action: "submitted",
    review: { id: 3, body: "/agent-run go", state: "commented", user: user(author) },
    pull_request: pr(42),
    sender: user(author),
  }),
  pull_request_review_comment: (author) => ({
    action: "created",
    comment: { id: 4, body: "/agent-run go", path: "a.ts", user: user(author) },
    pull_request: pr(42),
    sender: user(author),
  }),
  // An event type this version of the action has never heard of, carrying a comment.
  issue_reaction_future: (author) => ({
    action: "created",
    comment: { id: 5, body: "/agent-run go", user: user(author) },
    sender: user(author),
  }),
};

let llm: MockLlm | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await llm?.close();
  await github?.close();
  llm = undefined;
  github = undefined;
});

async function step(
  event: string,
  payload: unknown,
  roles: Record<string, Role>,
  env: Record<string, string> = {},
) {
  llm = await startMockLlm({ script: [{ text: "Done.", usage: { input: 5, output: 1 } }] });
  github = await startFakeGitHub({ roles });
  const workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-comment-events-"));
  await writeFile(path.join(workspace, "task.yml"), TASK);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: workspace,
      encoding: "utf8",
    });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "base");
  const sha = git("rev-parse", "HEAD").trim();
  // The payloads' commits (a PR's base, say) are this repository's one commit.
  const run = await runActionBundle({
    main: BUILT_ACTION,
    eventName: event,
    payload: JSON.parse(JSON.stringify(payload).replaceAll(ZERO_SHA, sha)),
    workspace,
    inputs: {
      task: "task.yml",
      "anthropic-api-key": "sk-ant-comment-events-0123",
      "github-token": "ghs_commentEvents0123",
    },
    env: { GITHUB_API_URL: github.url, ANTHROPIC_BASE_URL: llm.url, GITHUB_SHA: sha, ...env },
  });
  return { run, llm, github, workspace };
}

describe("comment, review and discussion events check their author", { timeout: 60_000 }, () => {
  test.for(Object.keys(EVENTS))("%s from a read-only user: skipped, nothing runs", async (event) => {
    const { run, llm, github, workspace } = await step(event, EVENTS[event]?.("reader"), { reader: "read" });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(llm.requests).toEqual([]);
    expect(github.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /repos/octo-org/octo-repo/collaborators/reader/permission",
    ]);
    expect(run.outputs).toMatchObject({ conclusion: "skipped", "exit-code": "0" });
    expect(run.stdout).toContain(
      "agent-run: @reader has read permission on octo-org/octo-repo; a run needs write or admin: not running",
    );
    expect(existsSync(path.join(workspace, ".agent-run"))).toBe(false);
  });

  test("a comment without its author's login: skipped without asking", async () => {
    const { run, llm, github } = await step(
      "commit_comment",
      { comment: { id: 1, body: "/agent-run go" } },
      {},
    );
    expect(run.outputs.conclusion).toBe("skipped");
    expect(run.stdout).toContain("the event names no comment author's login; not running");
    expect(llm.requests).toEqual([]);
    expect(github.requests).toEqual([]);
  });

  test("discussion_comment from a writer runs, with the comment in the prompt", async () => {
    const { run, llm } = await step("discussion_comment", EVENTS.discussion_comment?.("writer"), {
      writer: "write",
    });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.stdout).toContain("@writer has write permission on octo-org/octo-repo: running");
    expect(JSON.stringify(llm.requests[0]?.body)).toContain("Say done. /agent-run go");
  });

  test("pull_request_review from a writer runs with the review's body and comments on the PR", async () => {
    const { run, llm, github } = await step("pull_request_review", EVENTS.pull_request_review?.("writer"), {
      writer: "write",
    });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(JSON.stringify(llm.requests[0]?.body)).toContain("Say done. /agent-run go");
    expect(github.comments.map((c) => c.issueNumber)).toEqual([42]);
  });

  test("an unknown event type is untrusted: without bubblewrap, sandbox auto refuses (exit 2)", async () => {
    const { run, llm } = await step(
      "issue_reaction_future",
      { action: "created", sender: user("writer") },
      {},
      { AGENT_RUN_BWRAP: "/nonexistent/bwrap" },
    );
    expect(run.exitCode, run.stdout).toBe(2);
    expect(llm.requests).toEqual([]);
    expect(run.commands.annotations[0]?.data).toContain("the trigger is untrusted");
  });
});
