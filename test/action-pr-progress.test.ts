/**
 * Live progress in the sticky comment, through the built action (the run in its own process, its
 * progress sent over the IPC channel): edits arrive while a multi-turn run goes on, no closer
 * together than `progress-interval`, and the last edit is the final summary; a rate limit on an
 * edit slows the edits down and never fails the run; a cancelled run and a run whose process
 * died leave a final state, not "running".
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, test } from "vitest";
import { type FakeGitHub, type FakeGitHubOptions, startFakeGitHub } from "./fake-github/server.ts";
import { runPrStep } from "./helpers/pr-step.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

const TASK = `name: progress-task
model: anthropic:claude-sonnet-4-6
prompt: Read the task file a few times.
tools: [read]
`;
const MARKER = "<!-- agent-run:task=progress-task -->";

const readTask = (delayMs: number, n: number): MockReply => ({
  toolCalls: [{ name: "read", arguments: { path: "task.yml", offset: n } }],
  usage: { input: 1000 * n, output: 20 },
  firstByteDelayMs: delayMs,
});
const done: MockReply = { text: "Read it.", usage: { input: 5000, output: 10 }, firstByteDelayMs: 1200 };

let llm: MockLlm | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await llm?.close();
  await github?.close();
  llm = undefined;
  github = undefined;
});

async function start(script: MockReply[], gh: FakeGitHubOptions = {}) {
  llm = await startMockLlm({ script });
  github = await startFakeGitHub(gh);
  return { llm, github };
}

const isProgress = (body: string) => body.includes("status=running");

describe("live progress", { timeout: 90_000 }, () => {
  test("edits arrive during a multi-turn run, at most one per interval, and the last is the final summary", async () => {
    const { llm, github } = await start([1, 2, 3, 4].map((n) => readTask(1200, n)).concat(done));

    const run = await runPrStep({ llm, github, task: TASK, inputs: { "progress-interval": "1" } });

    expect(run.exitCode).toBe(0);
    expect(llm.requests).toHaveLength(5);
    expect(github.comments).toHaveLength(1);
    const history = github.comments[0]!.history;
    const progress = history.filter((h) => isProgress(h.body));
    // Created showing progress, edited as the turns went on, each body different.
    expect(isProgress(history[0]!.body)).toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(new Set(progress.map((h) => h.body)).size).toBe(progress.length);
    expect(progress.map((h) => h.body).join("\n")).toMatch(/turn [3-5] · \d+ tool calls · \$[\d.]+ so far/);
    expect(progress.at(-1)!.body).toContain("`read`");
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]!.at - progress[i - 1]!.at).toBeGreaterThanOrEqual(900);
    }
    // The final summary replaced it, and nothing came after it.
    const summary = await readFile(run.outputs.summary!, "utf8");
    expect(history.at(-1)!.body).toBe(
      `${MARKER}\n<!-- agent-run:state status=done head=0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c conclusion=success event=pull_request run=4242 attempt=1 -->\n${summary}`,
    );
    expect(history.filter((h) => !isProgress(h.body))).toHaveLength(1);
  });

  test("progress: false edits nothing while the run goes on: one comment write, the summary", async () => {
    const { llm, github } = await start([1, 2].map((n) => readTask(800, n)).concat(done));
    const run = await runPrStep({
      llm,
      github,
      task: TASK,
      inputs: { progress: "false", "progress-interval": "1" },
    });
    expect(run.exitCode).toBe(0);
    expect(github.comments[0]!.history).toHaveLength(1);
    expect(isProgress(github.comments[0]!.history[0]!.body)).toBe(false);
  });

  test("a 429 with retry-after on a progress edit slows the edits down; the run and the summary go on", async () => {
    const { llm, github } = await start([1, 2, 3].map((n) => readTask(1200, n)).concat(done), {
      faults: [{ method: "PATCH", path: "/comments/", status: 429, retryAfter: 2, times: 1 }],
    });
    const run = await runPrStep({ llm, github, task: TASK, inputs: { "progress-interval": "1" } });
    expect(run.exitCode).toBe(0);
    expect(run.outputs.conclusion).toBe("success");
    expect(run.stdout).toContain("GitHub asked to slow down; progress edits wait 2 s");
    const history = github.comments[0]!.history;
    expect(isProgress(history.at(-1)!.body)).toBe(false);
    expect(history.at(-1)!.body).toContain("conclusion=success");
  });

  test("comment: on-change shows no progress until the task has a comment", async () => {
    const { llm, github } = await start([readTask(800, 1), { ...done, firstByteDelayMs: 800 }]);
    const run = await runPrStep({
      llm,
      github,
      task: TASK,
      inputs: { comment: "on-change", "progress-interval": "1" },
    });
    expect(run.exitCode).toBe(0);
    expect(github.comments).toEqual([]);
    expect(run.stdout).toContain("no progress shown (comment: on-change and no comment of this task yet)");
  });

  test("a cancelled job (SIGTERM mid-run) leaves the interrupted run's summary, not progress", async () => {
    const { llm, github } = await start([readTask(200, 1), readTask(30_000, 2), done]);
    const run = await runPrStep({
      llm,
      github,
      task: TASK,
      inputs: { "progress-interval": "1" },
      interrupt: { signal: "SIGTERM", whenStdoutHas: "::group::turn 2" },
    });
    expect(run.outputs.conclusion).toBe("interrupted");
    const history = github.comments[0]!.history;
    expect(history.some((h) => isProgress(h.body))).toBe(true);
    expect(isProgress(history.at(-1)!.body)).toBe(false);
    expect(history.at(-1)!.body).toContain("conclusion=interrupted");
  });

  test("the run's process killed mid-run: the comment is left with an error, not progress", async () => {
    const { llm, github } = await start([readTask(200, 1), readTask(30_000, 2), done]);
    const run = await runPrStep({
      llm,
      github,
      task: TASK,
      inputs: { "progress-interval": "1" },
      interrupt: {
        // Kill the run's process (the step's child), then send the step a signal it ignores.
        signal: "SIGWINCH",
        whenStdoutHas: "::group::turn 2",
        before: async (pid) => {
          await new Promise((resolve) => setTimeout(resolve, 1500));
          const children = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
            .trim()
            .split("\n");
          for (const child of children) process.kill(Number(child), "SIGKILL");
        },
      },
    });
    expect(run.exitCode).toBe(4);
    const history = github.comments[0]!.history;
    expect(history.some((h) => isProgress(h.body))).toBe(true);
    const last = history.at(-1)!.body;
    expect(isProgress(last)).toBe(false);
    expect(last).toContain("conclusion=error");
    expect(last).toContain("The run ended without a summary (exit code 4)");
  });
});
