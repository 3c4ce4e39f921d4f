/**
 * The built action (dist/index.js) run as the Actions runner runs it, against a fake GitHub REST
 * API and the mock LLM server, both on loopback.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type ActionRun, runActionBundle } from "./fake-github/actions-runner.ts";
import { type FakeGitHub, type FakeGitHubOptions, startFakeGitHub } from "./fake-github/server.ts";
import { BUILT_ACTION } from "./helpers/built.ts";
import {
  type MockLlm,
  type MockReply,
  type MockScript,
  type RecordedRequest,
  startMockLlm,
} from "./mock-llm/server.ts";

const main = BUILT_ACTION;
const fixtures = path.join(import.meta.dirname, "fake-github/fixtures");
const API_KEY = "sk-ant-e2e-secret-0123456789";
const TOKEN = "ghs_e2eTokenAbcdef0123456789";
const MARKER = "<!-- agent-run:task=e2e-task -->";

const writeHello: MockReply = {
  toolCalls: [{ name: "write", arguments: { path: "hello.txt", content: "hello from the agent\n" } }],
  usage: { input: 1200, output: 40 },
};
const done: MockReply = { text: "Wrote hello.txt.", usage: { input: 1300, output: 12 } };
const nothing: MockReply = { text: "Nothing to change.", usage: { input: 900, output: 8 } };

const TASK = (extra = "") => `name: e2e-task
model: anthropic:claude-sonnet-4-6
prompt: Create hello.txt.
tools: [read, write]
${extra}`;

let llm: MockLlm | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await llm?.close();
  await github?.close();
  llm = undefined;
  github = undefined;
});

/** Writes hello.txt, then stops once it sees the tool's result: robust to retried requests. */
function writeThenStop(_index: number, request: RecordedRequest): MockReply {
  const messages = request.body.messages;
  const last = Array.isArray(messages) ? messages.at(-1) : undefined;
  return JSON.stringify(last ?? "").includes("tool_result") ? done : writeHello;
}

async function start(script: MockScript, gh: FakeGitHubOptions = {}) {
  llm = await startMockLlm({ script });
  github = await startFakeGitHub(gh);
  return { llm, github };
}

async function runStep(options: {
  event?: "pull_request" | "pull_request_target" | "issue_comment" | "workflow_dispatch";
  /** Edits the event's fixture payload. */
  editPayload?: (payload: { pull_request: { head: { sha: string; repo: { full_name: string } } } }) => void;
  inputs?: Record<string, string>;
  task?: string;
  interrupt?: { signal: NodeJS.Signals; whenStdoutHas: string };
  /** Commit the workspace to a git repository and pass its HEAD as GITHUB_SHA. */
  git?: boolean;
  /** More files in the workspace, by relative path. */
  files?: Record<string, string>;
}): Promise<ActionRun & { workspace: string }> {
  const workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-action-e2e-"));
  await writeFile(path.join(workspace, "task.yml"), options.task ?? TASK());
  await writeFile(path.join(workspace, "README.md"), "# demo\n");
  for (const [file, content] of Object.entries(options.files ?? {})) {
    await mkdir(path.dirname(path.join(workspace, file)), { recursive: true });
    await writeFile(path.join(workspace, file), content);
  }
  const sha = options.git ? commitAll(workspace) : undefined;
  const event = options.event ?? "pull_request";
  const fixture = event === "issue_comment" ? "issue_comment.json" : "pull_request.json";
  const payload =
    event === "workflow_dispatch" ? {} : JSON.parse(await readFile(path.join(fixtures, fixture), "utf8"));
  options.editPayload?.(payload);
  const run = await runActionBundle({
    main,
    eventName: event,
    payload,
    workspace,
    inputs: {
      task: "task.yml",
      "anthropic-api-key": API_KEY,
      "github-token": TOKEN,
      comment: "true",
      ...options.inputs,
    },
    env: {
      GITHUB_API_URL: github?.url ?? "",
      ANTHROPIC_BASE_URL: llm?.url ?? "",
      ...(sha !== undefined && { GITHUB_SHA: sha }),
    },
    interrupt: options.interrupt,
  });
  return { ...run, workspace };
}

/** Commits everything in `dir` to a new repository; returns the commit. */
function commitAll(dir: string): string {
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: dir,
      encoding: "utf8",
    });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "base");
  return git("rev-parse", "HEAD").trim();
}

/** The requests on issue comments (not the identity, commit or pull request lookups). */
const calls = (gh: FakeGitHub, method: string) =>
  gh.requests.filter((r) => r.method === method && /\/comments(\/|$)/.test(r.path));
const HEAD = "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c";
/** The hidden line the final comment records (run-state.ts). */
const doneState = (conclusion: string, head = HEAD) =>
  `<!-- agent-run:state status=done head=${head} conclusion=${conclusion} event=pull_request run=4242 attempt=1 -->`;

describe("dist/index.js as a workflow step", { timeout: 60_000 }, () => {
  test("pull_request: the first run creates the comment, the second updates it; outputs parsed back", async () => {
    const { github, llm } = await start(writeThenStop);

    const first = await runStep({});
    expect(first.stderr).not.toContain(API_KEY);
    expect(first.exitCode).toBe(0);
    expect(github.comments).toHaveLength(1);
    const comment = github.comments[0]!;
    expect(comment.issueNumber).toBe(42);
    expect(comment.body.startsWith(`${MARKER}\n`)).toBe(true);
    expect(first.outputs).toEqual({
      conclusion: "success",
      "exit-code": "0",
      patch: path.join(first.workspace, ".agent-run/patch.diff"),
      "changed-files": "hello.txt",
      "cost-usd": expect.stringMatching(/^\d+(\.\d+)?$/),
      turns: "2",
      usage: path.join(first.workspace, ".agent-run/usage.json"),
      summary: path.join(first.workspace, ".agent-run/summary.md"),
      "comment-url": comment.html_url,
      "review-url": "",
      "patch-withheld": "false",
      result: "",
    });
    expect(await readFile(first.outputs.patch!, "utf8")).toContain("+hello from the agent");
    const summary = await readFile(first.outputs.summary!, "utf8");
    expect(first.stepSummary.trim()).toBe(summary.trim());
    expect(comment.body).toBe(`${MARKER}\n${doneState("success")}\n${summary}`);

    // Secrets: masked before anything else is logged, and never handed to the tools' env as inputs.
    const lines = first.stdout.split("\n");
    expect(lines.slice(0, 2)).toEqual(
      expect.arrayContaining([`::add-mask::${API_KEY}`, `::add-mask::${TOKEN}`]),
    );
    expect(first.stdout.split(API_KEY)).toHaveLength(2);
    expect(first.stdout).toMatch(/^::group::/m);
    const auth = llm.requests[0]?.headers;
    expect([auth?.["x-api-key"], auth?.authorization]).toContain(
      auth?.["x-api-key"] ? API_KEY : `Bearer ${API_KEY}`,
    );
    expect(github.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);

    // A new head commit: the same comment is updated, never a second one created.
    const newHead = "a".repeat(40);
    const second = await runStep({
      editPayload: (payload) => {
        payload.pull_request.head.sha = newHead;
      },
    });
    expect(second.exitCode).toBe(0);
    expect(github.comments).toHaveLength(1);
    expect(calls(github, "POST")).toHaveLength(1);
    expect(second.outputs["comment-url"]).toBe(comment.html_url);
    expect(github.comments[0]?.body).toBe(
      `${MARKER}\n${doneState("success", newHead)}\n${await readFile(second.outputs.summary!, "utf8")}`,
    );
  });

  test("comment: on-change with an empty patch posts nothing", async () => {
    const { github } = await start([nothing]);
    const run = await runStep({ inputs: { comment: "on-change" } });
    expect(run.exitCode).toBe(0);
    expect(run.outputs).toMatchObject({ conclusion: "success", "changed-files": "", "comment-url": "" });
    expect(await readFile(run.outputs.patch!, "utf8")).toBe("");
    expect(calls(github, "GET")).toHaveLength(1);
    expect(github.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(github.comments).toEqual([]);
    expect(run.stdout).toContain("no PR comment (comment: on-change and the patch is empty)");
    expect(run.stepSummary).not.toBe("");
  });

  test("comment: on-change with an empty patch brings an earlier comment up to date", async () => {
    const { github } = await start([nothing], {
      comments: [{ issueNumber: 42, body: `${MARKER}\nan old patch`, login: "github-actions[bot]" }],
    });
    const run = await runStep({ inputs: { comment: "on-change" } });
    expect(run.exitCode).toBe(0);
    expect(calls(github, "POST")).toEqual([]);
    expect(github.comments).toHaveLength(1);
    expect(github.comments[0]?.body).toBe(
      `${MARKER}\n${doneState("success")}\n${await readFile(run.outputs.summary!, "utf8")}`,
    );
    expect(run.outputs["comment-url"]).toBe(github.comments[0]?.html_url);
  });

  test("issue_comment: a commenter without write permission is refused, nothing runs", async () => {
    const { github, llm } = await start([writeHello, done], { roles: { "drive-by-user": "read" } });
    const run = await runStep({ event: "issue_comment" });
    expect(run.exitCode).toBe(0);
    expect(llm.requests).toEqual([]);
    expect(github.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /repos/octo-org/octo-repo/collaborators/drive-by-user/permission",
    ]);
    expect(run.stdout).toContain(
      "::notice title=agent-run refused the trigger::agent-run: @drive-by-user has read permission on octo-org/octo-repo; a run needs write or admin: not running",
    );
    expect(run.outputs).toMatchObject({ conclusion: "skipped", "exit-code": "0", "comment-url": "" });
    expect(existsSync(path.join(run.workspace, ".agent-run"))).toBe(false);
  });

  test("issue_comment: a commenter with write permission runs the task and gets the comment", async () => {
    const { github, llm } = await start([writeHello, done], { roles: { "drive-by-user": "write" } });
    const run = await runStep({ event: "issue_comment" });
    expect(run.exitCode).toBe(0);
    expect(llm.requests).toHaveLength(2);
    expect(run.stdout).toContain("@drive-by-user has write permission on octo-org/octo-repo: running");
    expect(github.comments).toHaveLength(1);
    expect(run.outputs["comment-url"]).toBe(github.comments[0]?.html_url);
  });

  test("a 403 from a read-only token is a warning: the step passes, outputs and summary are written", async () => {
    const { github } = await start([writeHello, done], {
      faults: [
        { method: "POST", path: "/comments", status: 403, message: "Resource not accessible by integration" },
      ],
    });
    const run = await runStep({});
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /^::warning title=agent-run%3A PR comment not posted::GitHub API: creating a comment on #42 failed \(HTTP 403\)/m,
    );
    expect(run.outputs).toMatchObject({
      conclusion: "success",
      "changed-files": "hello.txt",
      "comment-url": "",
    });
    expect(run.stepSummary).toContain("hello.txt");
    expect(github.comments).toEqual([]);
  });

  test("a 429 with a short retry-after is waited out; a long one is a warning", async () => {
    const { github } = await start(writeThenStop, {
      faults: [{ method: "POST", path: "/comments", status: 429, retryAfter: 1, times: 1 }],
    });
    const retried = await runStep({});
    expect(retried.exitCode).toBe(0);
    expect(calls(github, "POST").map((r) => r.status)).toEqual([429, 201]);
    expect(retried.outputs["comment-url"]).toBe(github.comments[0]?.html_url);

    github.faults.push({ path: "/comments", status: 429, retryAfter: 3600 });
    const limited = await runStep({});
    expect(limited.exitCode).toBe(0);
    expect(limited.stdout).toContain("rate limited; GitHub asked to wait 3600 s");
    expect(limited.outputs).toMatchObject({ conclusion: "success", "comment-url": "" });
    expect(limited.stepSummary).not.toBe("");
  });

  test("a limit fails the step with exit 3 and an ::error:: at the spec's limits line", async () => {
    await start([writeHello]);
    const run = await runStep({ task: TASK("limits:\n  max_turns: 1\n"), event: "workflow_dispatch" });
    expect(run.exitCode).toBe(3);
    expect(run.outputs).toMatchObject({
      conclusion: "limit",
      "exit-code": "3",
      turns: "1",
      "comment-url": "",
    });
    expect(run.stdout).toMatch(
      /^::error title=agent-run limit,file=task\.yml,line=5::agent-run: stopped by a limit/m,
    );
    expect(run.stdout).toContain("no PR comment (the workflow_dispatch event has no pull request)");
  });

  test("a spec error fails the step with exit 2 and an ::error:: at its line and column", async () => {
    const { llm } = await start([done]);
    const run = await runStep({ task: TASK().replace("tools: [read, write]", "tools: [read, bsh]") });
    expect(run.exitCode).toBe(2);
    expect(llm.requests).toEqual([]);
    expect(run.stdout).toMatch(
      /^::error title=agent-run%3A task spec error,file=task\.yml,line=4,col=\d+::agent-run: tools\[1\]: /m,
    );
    expect(run.outputs).toMatchObject({
      conclusion: "error",
      "exit-code": "2",
      patch: "",
      "comment-url": "",
    });
    expect(run.stepSummary).toContain("nothing was run");
  });

  test("a cancelled job (SIGTERM) ends the run as interrupted, exit 143, outputs still written", async () => {
    await start([{ ...writeHello, firstByteDelayMs: 30_000 }]);
    const run = await runStep({ interrupt: { signal: "SIGTERM", whenStdoutHas: "::group::turn 1" } });
    expect(run.exitCode).toBe(143);
    expect(run.outputs).toMatchObject({ conclusion: "interrupted", "exit-code": "143" });
    expect(existsSync(run.outputs.usage!)).toBe(true);
    expect(run.stdout).toMatch(/^::error title=agent-run interrupted::agent-run: interrupted/m);
  });

  test("pull_request_target on a fork's PR warns that it runs with secrets", async () => {
    const { github } = await start(writeThenStop);
    const run = await runStep({
      event: "pull_request_target",
      git: true,
      editPayload: (payload) => {
        payload.pull_request.head.repo.full_name = "mallory/octo-repo";
      },
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /^::warning::agent-run: pull_request_target on a fork's PR runs with this repository's secrets/m,
    );
    expect(github.comments).toHaveLength(1);
  });

  test("without working-directory the spec's workdir is the agent's workspace", async () => {
    await start(writeThenStop);
    const run = await runStep({
      task: TASK("workdir: packages/app\n"),
      event: "workflow_dispatch",
      files: { "packages/app/package.json": "{}\n" },
    });
    expect(run.exitCode).toBe(0);
    expect(run.outputs["changed-files"]).toBe("hello.txt");
    expect(existsSync(path.join(run.workspace, "packages/app/hello.txt"))).toBe(true);
    expect(existsSync(path.join(run.workspace, "hello.txt"))).toBe(false);
  });

  test("a before_stop check still failing fails the step with exit 1 and an ::error:: at the hook", async () => {
    const { llm } = await start([nothing]);
    const task = TASK("hooks:\n  before_stop:\n    - run: exit 1\n      max_attempts: 2\n");
    const run = await runStep({ task, event: "workflow_dispatch" });
    expect(run.exitCode).toBe(1);
    expect(run.outputs).toMatchObject({ conclusion: "failure", "exit-code": "1" });
    expect(llm.requests.length).toBeGreaterThanOrEqual(2);
    expect(run.stdout).toMatch(
      /^::error title=agent-run failed,file=task\.yml,line=6::agent-run: before_stop checks still failing/m,
    );
  });
});
