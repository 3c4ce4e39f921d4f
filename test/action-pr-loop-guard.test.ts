/**
 * The loop guard and the per-head-commit dedupe, through the built action: an event the action
 * caused itself (a comment by the token's identity, a comment carrying the hidden marker, a push
 * of a commit an agent-run step made) and a second pull-request event on a head commit already
 * done are skipped with no model call, the comment left alone, conclusion "skipped", exit 0 and
 * the reason in the log; re-run attempts, force-rerun and comment triggers run.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type FakeGitHub, type FakeGitHubOptions, startFakeGitHub } from "./fake-github/server.ts";
import { commentCalls, FIXTURE_HEAD, git, type Payload, runPrStep } from "./helpers/pr-step.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

const TASK = `name: loop-task
model: anthropic:claude-sonnet-4-6
prompt: Say done.
tools: [read]
`;
const done: MockReply = { text: "Done.", usage: { input: 100, output: 5 } };

let llm: MockLlm | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await llm?.close();
  await github?.close();
  llm = undefined;
  github = undefined;
});

async function start(gh: FakeGitHubOptions = {}) {
  llm = await startMockLlm({ script: () => done });
  github = await startFakeGitHub(gh);
  return { llm, github };
}

/** Skipped: exit 0, conclusion "skipped", why in the log, and no model call beyond `calls` before. */
function expectSkipped(run: Awaited<ReturnType<typeof runPrStep>>, llm: MockLlm, why: RegExp, calls = 0) {
  expect(run.exitCode).toBe(0);
  expect(llm.requests).toHaveLength(calls);
  expect(run.outputs).toMatchObject({ conclusion: "skipped", "exit-code": "0", "comment-url": "" });
  expect(run.stdout).toMatch(why);
}

describe("the loop guard", { timeout: 60_000 }, () => {
  test("a comment by the token's own bot (GraphQL viewer) is skipped, even with the bot allowed", async () => {
    const { llm, github } = await start();
    const run = await runPrStep({
      llm,
      github,
      task: TASK,
      event: "issue_comment",
      inputs: { "allowed-bots": "github-actions" },
      editPayload: (payload) => {
        const bot = { login: "github-actions[bot]", type: "Bot" };
        payload.comment = { body: "/agent-run go", user: bot };
        payload.sender = bot;
      },
    });
    expectSkipped(run, llm, /@github-actions\[bot\], the identity of this step's github-token/);
    expect(github.comments).toEqual([]);
  });

  test("with a personal token, a comment by the token's account is skipped; another writer's runs", async () => {
    const { llm, github } = await start({
      tokenLogin: "ci-user",
      roles: { "ci-user": "admin", "drive-by-user": "write" },
    });
    const own = await runPrStep({
      llm,
      github,
      task: TASK,
      event: "issue_comment",
      editPayload: (payload) => {
        payload.comment = { body: "/agent-run go", user: { login: "ci-user", type: "User" } };
        payload.sender = { login: "ci-user", type: "User" };
      },
    });
    expectSkipped(own, llm, /@ci-user, the identity of this step's github-token/);

    const other = await runPrStep({ llm, github, task: TASK, event: "issue_comment" });
    expect(other.exitCode).toBe(0);
    expect(other.outputs.conclusion).toBe("success");
    expect(llm.requests).toHaveLength(1);
  });

  test("a writer's comment carrying agent-run's hidden marker anywhere is skipped before any API call", async () => {
    const { llm, github } = await start({ roles: { "drive-by-user": "write" } });
    const run = await runPrStep({
      llm,
      github,
      task: TASK,
      event: "issue_comment",
      editPayload: (payload) => {
        payload.comment = {
          body: "Quoting the bot:\n\n> <!-- agent-run:task=other -->\n> ### Done\n\n/agent-run go",
          user: { login: "drive-by-user", type: "User" },
        };
      },
    });
    expectSkipped(run, llm, /carries agent-run's hidden marker/);
    expect(github.requests).toEqual([]);
  });

  test("a synchronize whose head commit carries the Agent-Run trailer is skipped; without it, it runs", async () => {
    const { llm, github } = await start();
    const workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-loop-push-"));
    await writeFile(path.join(workspace, "README.md"), "# demo\n");
    git(workspace, "init", "-q");
    git(workspace, "add", ".");
    git(workspace, "commit", "-q", "-m", "human change");
    const human = git(workspace, "rev-parse", "HEAD");
    await writeFile(path.join(workspace, "README.md"), "# demo, fixed\n");
    git(workspace, "commit", "-q", "-am", "Apply the agent's fix\n\nAgent-Run: loop-task");
    const agent = git(workspace, "rev-parse", "HEAD");
    const onHead = (sha: string) => (payload: Payload) => {
      if (payload.pull_request) payload.pull_request.head.sha = sha;
    };

    const skipped = await runPrStep({ llm, github, task: TASK, workspace, editPayload: onHead(agent) });
    expectSkipped(
      skipped,
      llm,
      new RegExp(`pushed commit ${agent.slice(0, 12)} carries the 'Agent-Run:' trailer`),
    );
    expect(commentCalls(github, "POST")).toEqual([]);

    const ran = await runPrStep({ llm, github, task: TASK, workspace, editPayload: onHead(human) });
    expect(ran.outputs.conclusion).toBe("success");
    expect(llm.requests).toHaveLength(1);
  });
  test("a push whose head commit carries the Agent-Run trailer is skipped; another push runs", async () => {
    const { llm, github } = await start();
    const push = (message: string): Payload => ({
      ref: "refs/heads/main",
      head_commit: { id: "c".repeat(40), message },
      sender: { login: "octocat", type: "User" },
    });
    const skipped = await runPrStep({
      llm,
      github,
      task: TASK,
      event: "push",
      payload: push("fix: lint errors (agent-run)\n\nAgent-Run: lint-autofix"),
    });
    expectSkipped(skipped, llm, /pushed commit cccccccccccc carries the 'Agent-Run:' trailer/);

    const ran = await runPrStep({
      llm,
      github,
      task: TASK,
      event: "push",
      payload: push("a human's change"),
    });
    expect(ran.outputs.conclusion).toBe("success");
    expect(llm.requests).toHaveLength(1);
  });
});

describe("the per-head-commit dedupe", { timeout: 90_000 }, () => {
  test("a second run on the same head commit is skipped; a re-run attempt and force-rerun run", async () => {
    const { llm, github } = await start();
    const first = await runPrStep({ llm, github, task: TASK });
    expect(first.outputs.conclusion).toBe("success");
    expect(llm.requests).toHaveLength(1);
    expect(github.comments).toHaveLength(1);
    const comment = github.comments[0]!;
    expect(comment.body).toContain(`head=${FIXTURE_HEAD}`);
    const edits = comment.history.length;

    const second = await runPrStep({ llm, github, task: TASK });
    expectSkipped(second, llm, /already ran on head commit 0d1a26e67d8f/, 1);
    expect(comment.history).toHaveLength(edits);
    expect(commentCalls(github, "PATCH").length + commentCalls(github, "POST").length).toBe(edits);

    const attempt = await runPrStep({ llm, github, task: TASK, env: { GITHUB_RUN_ATTEMPT: "2" } });
    expect(attempt.outputs.conclusion).toBe("success");
    expect(llm.requests).toHaveLength(2);

    const forced = await runPrStep({ llm, github, task: TASK, inputs: { "force-rerun": "true" } });
    expect(forced.outputs.conclusion).toBe("success");
    expect(llm.requests).toHaveLength(3);
    expect(github.comments).toHaveLength(1);
  });

  test("a comment trigger on a PR whose head is done still runs; another task on the same head runs", async () => {
    const { llm, github } = await start({ roles: { "drive-by-user": "write" } });
    await runPrStep({ llm, github, task: TASK });
    expect(llm.requests).toHaveLength(1);

    const comment = await runPrStep({ llm, github, task: TASK, event: "issue_comment" });
    expect(comment.outputs.conclusion).toBe("success");
    expect(llm.requests).toHaveLength(2);

    const other = await runPrStep({ llm, github, task: TASK.replace("loop-task", "other-task") });
    expect(other.outputs.conclusion).toBe("success");
    expect(llm.requests).toHaveLength(3);
    expect(github.comments).toHaveLength(2);
  });

  test("a run that ended as an error on that head commit does not count", async () => {
    const { llm, github } = await start({
      comments: [
        {
          issueNumber: 42,
          login: "github-actions[bot]",
          body: `<!-- agent-run:task=loop-task -->\n<!-- agent-run:state status=done head=${FIXTURE_HEAD} conclusion=error event=pull_request run=1 attempt=1 -->\nfailed`,
        },
      ],
    });
    const run = await runPrStep({ llm, github, task: TASK });
    expect(run.outputs.conclusion).toBe("success");
    expect(llm.requests).toHaveLength(1);
    expect(run.stdout).toContain("ended as error: running again");
  });
});
