/**
 * The pull request's diff, through the built action: a depth-1 checkout of the PR's merge commit
 * (as actions/checkout makes it) whose base is several commits back is deepened over its own
 * remote (a local bare repository, file://) until the merge base is there, and the task gets
 * `{{ vars.pr_base_sha }}`, `{{ vars.pr_head_sha }}` and `{{ vars.pr_diff_file }}`, a file in the
 * outputs dir the tools can read, never part of the patch, holding merge base...head. Without a
 * merge base the run stops with exit 4 before any model call; a diff over 1 MB is cut with a note.
 */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type FakeGitHub, startFakeGitHub } from "./fake-github/server.ts";
import { git, type Payload, runPrStep } from "./helpers/pr-step.ts";
import { type MockLlm, type MockReply, type RecordedRequest, startMockLlm } from "./mock-llm/server.ts";

const TASK = `name: diff-task
model: anthropic:claude-sonnet-4-6
prompt: "Review {{ vars.pr_base_sha }}..{{ vars.pr_head_sha }}: the diff is in {{ vars.pr_diff_file }}."
tools: [read]
`;

/** Commits main moved on past the PR's fork point, besides the three that touch a file. */
const MAIN_AHEAD = 40;

let llm: MockLlm | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await llm?.close();
  await github?.close();
  llm = undefined;
  github = undefined;
});

interface Origin {
  /** file:// URL of the bare repository. */
  url: string;
  /** A full clone, to compute what the diff must be. */
  full: string;
  mergeBase: string;
  baseSha: string;
  headSha: string;
}

/**
 * main: m1..m6 and MAIN_AHEAD more; the PR's branch leaves main at m3 and adds two commits; main
 * then moves on (m4..m6 touch a file the PR does not, so a two-dot diff would show them undone); the PR's
 * merge commit is refs/pull/7/merge, its head refs/pull/7/head.
 */
async function makeOrigin(options: { orphanHead?: boolean; bigFile?: number } = {}): Promise<Origin> {
  const root = await mkdtemp(path.join(os.tmpdir(), "agent-run-pr-origin-"));
  const full = path.join(root, "full");
  const bare = path.join(root, "origin.git");
  git(root, "init", "-q", "-b", "main", full);
  const commit = async (file: string, content: string, message: string) => {
    await writeFile(path.join(full, file), content);
    git(full, "add", file);
    git(full, "commit", "-q", "-m", message);
    return git(full, "rev-parse", "HEAD");
  };
  await commit("app.txt", "line 1\nline 2\nline 3\n", "m1");
  await commit("main-only.txt", "one\n", "m2");
  const mergeBase = await commit("app.txt", "line 1\nline 2 edited on main\nline 3\n", "m3");
  if (options.orphanHead) git(full, "checkout", "-q", "--orphan", "feature");
  else git(full, "checkout", "-q", "-b", "feature");
  await commit("app.txt", "line 1\nline 2 edited on main\nline 3\nline 4 from the PR\n", "f1");
  await commit("pr-file.txt", "added by the PR\n", "f2");
  if (options.bigFile) await commit("zz-big.txt", `${"x".repeat(99)}\n`.repeat(options.bigFile / 100), "f3");
  const headSha = git(full, "rev-parse", "HEAD");
  git(full, "checkout", "-q", "main");
  for (const n of [4, 5, 6]) await commit("main-only.txt", `one\n${"more\n".repeat(n)}`, `m${n}`);
  // More commits on main than the first fetch's depth (32): finding the merge base takes a deepening.
  for (let n = 7; n < 7 + MAIN_AHEAD; n++) git(full, "commit", "-q", "--allow-empty", "-m", `m${n}`);
  const baseSha = git(full, "rev-parse", "HEAD");
  // The merge commit's content does not matter here: its parents do (a real merge of unrelated histories conflicts).
  const merge = git(full, "commit-tree", "-p", baseSha, "-p", headSha, "-m", "merge", `${headSha}^{tree}`);
  git(root, "clone", "-q", "--bare", full, bare);
  git(bare, "update-ref", "refs/pull/7/head", headSha);
  git(bare, "update-ref", "refs/pull/7/merge", merge);
  git(bare, "branch", "-q", "-D", "feature");
  return { url: `file://${bare}`, full, mergeBase, baseSha, headSha };
}

/** What actions/checkout does on pull_request: fetch the merge ref at depth 1, check it out. */
async function shallowCheckout(origin: Origin): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-pr-checkout-"));
  git(dir, "init", "-q");
  git(dir, "remote", "add", "origin", origin.url);
  git(dir, "fetch", "-q", "--no-tags", "--depth=1", "origin", "+refs/pull/7/merge:refs/remotes/pull/7/merge");
  git(dir, "checkout", "-q", "--detach", "refs/remotes/pull/7/merge");
  expect(git(dir, "rev-parse", "--is-shallow-repository")).toBe("true");
  return dir;
}

const onPull = (origin: Pick<Origin, "baseSha" | "headSha">) => (payload: Payload) => {
  payload.number = 7;
  if (!payload.pull_request) throw new Error("no pull_request in the fixture");
  payload.pull_request.number = 7;
  payload.pull_request.base.sha = origin.baseSha;
  payload.pull_request.head.sha = origin.headSha;
  payload.pull_request.head.ref = "feature";
  payload.action = "opened";
};

/** Reads the file the prompt names, then stops. */
function readThePromptsFile(_index: number, request: RecordedRequest): MockReply {
  const messages = request.body.messages as Array<{ content: unknown }>;
  if (messages.length > 1) return { text: "Reviewed.", usage: { input: 200, output: 5 } };
  const prompt = JSON.stringify(messages[0]?.content);
  const file = /the diff is in (\S+?\.diff)/.exec(prompt)?.[1] ?? "(none)";
  return { toolCalls: [{ name: "read", arguments: { path: file } }], usage: { input: 100, output: 10 } };
}

describe("the pull request's diff", { timeout: 90_000 }, () => {
  test("a depth-1 checkout of the merge commit, base several commits back: merge base...head, readable, not in the patch", async () => {
    const origin = await makeOrigin();
    const workspace = await shallowCheckout(origin);
    llm = await startMockLlm({ script: readThePromptsFile });
    github = await startFakeGitHub();

    const run = await runPrStep({ llm, github, task: TASK, workspace, editPayload: onPull(origin) });

    expect(run.exitCode).toBe(0);
    expect(run.outputs.conclusion).toBe("success");
    const diffFile = path.join(workspace, ".agent-run", "pr.diff");
    const expected = `${git(origin.full, "diff", "-M", "--no-color", origin.mergeBase, origin.headSha)}\n`;
    const diff = await readFile(diffFile, "utf8");
    expect(diff).toBe(expected);
    expect(diff).toContain("+line 4 from the PR");
    expect(diff).toContain("+added by the PR");
    expect(diff).not.toContain("main-only.txt");

    const prompt = JSON.stringify(llm.requests[0]?.body.messages);
    expect(prompt).toContain(`Review ${origin.baseSha}..${origin.headSha}: the diff is in ${diffFile}.`);
    // The read tool got it (the tools can read it); the patch and changed files do not have it.
    expect(JSON.stringify(llm.requests[1]?.body.messages)).toContain("+added by the PR");
    expect(run.outputs["changed-files"]).toBe("");
    expect(await readFile(run.outputs.patch!, "utf8")).toBe("");
    // Head and base fetched at depth 32, then deepened once: the merge base is 43 commits back.
    expect(run.stdout).toMatch(
      /pull request #7: diff [0-9a-f]{12}\.\.\.[0-9a-f]{12} \(merge base\.\.\.head, [\d,]+ bytes, after 3 fetches\)/,
    );
    // GITHUB_SHA-free: the working tree is still the merge commit, untouched.
    expect(git(workspace, "status", "--porcelain", "--untracked-files=no")).toBe("");
  });

  test("a base commit the remote does not have: exit 4, a clear message, no model call", async () => {
    const origin = await makeOrigin();
    const workspace = await shallowCheckout(origin);
    llm = await startMockLlm({ script: readThePromptsFile });
    github = await startFakeGitHub();
    const missing = "b".repeat(40);

    const run = await runPrStep({
      llm,
      github,
      task: TASK,
      workspace,
      editPayload: onPull({ baseSha: missing, headSha: origin.headSha }),
    });

    expect(run.exitCode).toBe(4);
    expect(run.outputs).toMatchObject({ conclusion: "error", "exit-code": "4" });
    expect(llm.requests).toEqual([]);
    expect(run.stdout).toContain(
      `commit ${missing.slice(0, 12)} of pull request #7 is not in the checkout and could not be fetched from origin`,
    );
  });

  test("a head with no history in common with the base: exit 4 after deepening to the whole history", async () => {
    const origin = await makeOrigin({ orphanHead: true });
    const workspace = await shallowCheckout(origin);
    llm = await startMockLlm({ script: readThePromptsFile });
    github = await startFakeGitHub();

    const run = await runPrStep({ llm, github, task: TASK, workspace, editPayload: onPull(origin) });

    expect(run.exitCode).toBe(4);
    expect(llm.requests).toEqual([]);
    expect(run.stdout).toMatch(
      /no merge base of the pull request's base [0-9a-f]{12} and head [0-9a-f]{12} was found/,
    );
    expect(git(workspace, "rev-parse", "--is-shallow-repository")).toBe("false");
  });

  test("a diff over 1 MB is cut on a line, with a note naming what was left out", async () => {
    const origin = await makeOrigin({ bigFile: 1_500_000 });
    const workspace = await shallowCheckout(origin);
    llm = await startMockLlm({ script: () => ({ text: "Reviewed.", usage: { input: 100, output: 5 } }) });
    github = await startFakeGitHub();

    const run = await runPrStep({ llm, github, task: TASK, workspace, editPayload: onPull(origin) });

    expect(run.exitCode).toBe(0);
    const diff = await readFile(path.join(workspace, ".agent-run", "pr.diff"), "utf8");
    const [kept, note] = [
      diff.slice(0, diff.lastIndexOf("# agent-run:")),
      diff.slice(diff.lastIndexOf("# agent-run:")),
    ];
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(1024 * 1024);
    expect(kept.endsWith("\n")).toBe(true);
    expect(kept).toContain("+line 4 from the PR");
    expect(note).toMatch(
      /^# agent-run: this diff was cut at [\d,]+ of [\d,]+ bytes; left out in whole or in part \(1 file\): zz-big\.txt\./,
    );
  });
});
