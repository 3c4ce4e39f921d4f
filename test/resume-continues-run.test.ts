import { cpSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { DEFAULT_FOLLOW_UP } from "../src/run/resume/prepare-resume.ts";
import { runCli } from "./helpers/cli.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";
import { gitRepo, sh, tempDir, treeState } from "./output-helpers.ts";

/**
 * `--resume DIR` (DESIGN §7): a run stopped by a limit is continued by a second run, in a fresh
 * checkout (as a second CI job would, with the first one's outputs as an artifact) or in the same
 * workspace; the second patch holds every change since the first run started; usage.json counts
 * both runs; a resume that cannot be done exits 2 and changes nothing.
 */
const TASK =
  "model: anthropic:claude-haiku-5-5\nprompt: Make the three changes.\ntools: [read, write, edit]\n";
const FILES = { "task.yml": TASK, "b.txt": "one\n", "c.txt": "alpha\n" };

/** Turns 0-2 (the first run, stopped by max_turns 3), then 3-4 (the resumed run). */
const TURNS: MockReply[] = [
  { toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "a new file\n" } }] },
  {
    toolCalls: [{ name: "edit", arguments: { path: "b.txt", edits: [{ oldText: "one", newText: "two" }] } }],
  },
  { toolCalls: [{ name: "read", arguments: { path: "c.txt" } }] },
  {
    toolCalls: [
      { name: "edit", arguments: { path: "c.txt", edits: [{ oldText: "alpha", newText: "beta" }] } },
    ],
  },
  { text: "Done: a.txt written, b.txt and c.txt edited." },
];

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function serve(turns: MockReply[] = TURNS): Promise<MockLlm> {
  let next = 0;
  mock = await startMockLlm({ script: () => turns[next++] ?? { text: "Done." } });
  return mock;
}

function run(dir: string, args: string[], url: string) {
  return runCli([path.join(dir, "task.yml"), ...args], { cwd: dir, env: mockEnv(url) });
}

function json(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
}

/** The first run, stopped by its turn limit; its outputs copied away as a CI artifact would be. */
async function firstRun(url: string): Promise<{ repo: string; artifact: string }> {
  const repo = gitRepo(FILES);
  const first = await run(repo, ["--max-turns", "3"], url);
  expect(first.code).toBe(3);
  const artifact = path.join(tempDir("agent-run-artifact-"), "previous-run");
  cpSync(path.join(repo, ".agent-run"), artifact, { recursive: true });
  expect(existsSync(path.join(artifact, "transcript.json"))).toBe(true);
  return { repo, artifact };
}

function freshCheckout(repo: string): string {
  const clone = tempDir("agent-run-clone-");
  sh(clone, `git clone -q ${JSON.stringify(repo)} .`);
  return clone;
}

describe("--resume", () => {
  test("in a fresh checkout: the earlier patch goes in first, the conversation goes on, the patch holds both runs", async () => {
    const { url } = await serve();
    const { repo, artifact } = await firstRun(url);
    const firstUsage = json(path.join(artifact, "usage.json"));
    const checkout = freshCheckout(repo);
    expect(existsSync(path.join(checkout, "a.txt"))).toBe(false);

    const second = await run(checkout, ["--resume", artifact], url);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(`resuming run ${firstUsage.run_id} (3 turns)`);
    expect(readFileSync(path.join(checkout, "c.txt"), "utf8")).toBe("beta\n");

    // The resumed model got the first run's conversation, then the follow-up message.
    const resumedRequest = mock?.requests[3]?.body as { messages: Array<{ role: string; content: unknown }> };
    expect(resumedRequest).toBeDefined();
    const sent = JSON.stringify(resumedRequest.messages);
    for (const id of ["toolu_mock_0_0", "toolu_mock_1_0", "toolu_mock_2_0"]) expect(sent).toContain(id);
    expect(JSON.stringify(resumedRequest.messages.at(-1))).toContain(DEFAULT_FOLLOW_UP.slice(0, 60));

    // The patch holds every change since the first run started: applied to the start, it gives the end.
    const patch = path.join(checkout, ".agent-run", "patch.diff");
    const start = freshCheckout(repo);
    sh(start, `git apply ${JSON.stringify(patch)}`);
    expect(treeState(start, [".agent-run"])).toEqual(treeState(checkout, [".agent-run"]));
    expect(readFileSync(patch, "utf8")).toMatch(/a\.txt[\s\S]*b\.txt[\s\S]*c\.txt/);

    const usage = json(path.join(checkout, ".agent-run", "usage.json"));
    expect(usage).toMatchObject({
      conclusion: "success",
      turns: 5,
      files_changed: 3,
      resumed_from: { run_id: firstUsage.run_id, conclusion: "limit", turns: 3 },
      tool_calls: { total: 4 },
    });
    expect(usage.run_id).not.toBe(firstUsage.run_id);
    const summary = readFileSync(path.join(checkout, ".agent-run", "summary.md"), "utf8");
    expect(summary).toContain(`Resumed run \`${firstUsage.run_id}\``);
  }, 60_000);

  test("in the workspace that holds the changes already, with a follow-up prompt; limits count the new run", async () => {
    const { url } = await serve();
    const { repo, artifact } = await firstRun(url);
    const second = await run(
      repo,
      ["--resume", artifact, "--prompt", "Now finish c.txt.", "--max-turns", "2"],
      url,
    );
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("its changes already here");
    const last = (
      mock?.requests[3]?.body as { messages: Array<{ content: unknown }> } | undefined
    )?.messages.at(-1);
    expect(JSON.stringify(last)).toContain("Now finish c.txt.");
    const patch = readFileSync(path.join(repo, ".agent-run", "patch.diff"), "utf8");
    expect(patch).toContain("+a new file");
    expect(patch).toContain("+two");
    expect(patch).toContain("+beta");
  }, 60_000);

  test("an outputs dir resumed into itself: the second run reads it before writing over it", async () => {
    const { url } = await serve();
    const repo = gitRepo(FILES);
    expect((await run(repo, ["--max-turns", "3"], url)).code).toBe(3);
    const second = await run(repo, ["--resume", ".agent-run"], url);
    expect(second.code).toBe(0);
    expect(json(path.join(repo, ".agent-run", "usage.json"))).toMatchObject({ turns: 5, files_changed: 3 });
  }, 60_000);

  test.for([
    [
      "a patch that does not apply",
      (checkout: string) => sh(checkout, "printf 'changed\\n' > b.txt"),
      "neither applies",
    ],
    [
      "a folder that is no run's outputs",
      (_checkout: string, artifact: string) => sh(artifact, "rm transcript.json"),
      "transcript.json is missing",
    ],
    [
      "a transcript.json that is a FIFO",
      (_checkout: string, artifact: string) => sh(artifact, "rm transcript.json && mkfifo transcript.json"),
      "transcript.json is a FIFO",
    ],
    [
      "a patch.diff that is a FIFO",
      (_checkout: string, artifact: string) => sh(artifact, "rm patch.diff && mkfifo patch.diff"),
      "patch.diff is missing or not a regular file",
    ],
  ] as const)(
    "%s: exit 2, and the workspace is left as it was",
    { timeout: 60_000 },
    async ([, spoil, message]) => {
      const { url } = await serve();
      const { repo, artifact } = await firstRun(url);
      const checkout = freshCheckout(repo);
      spoil(checkout, artifact);
      const before = treeState(checkout);
      const requests = mock?.requests.length;
      const second = await run(checkout, ["--resume", artifact], url);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain("cannot resume from");
      expect(second.stderr).toContain(message);
      expect(second.stderr).not.toMatch(/\n\s+at /);
      expect(treeState(checkout)).toEqual(before);
      expect(existsSync(path.join(checkout, ".agent-run"))).toBe(false);
      expect(mock?.requests.length).toBe(requests);
    },
  );

  test("another model: refused when the transcript holds reasoning signed by the earlier one, carried over when not", async () => {
    const signed: MockReply[] = [
      { thinking: "Plan: write a.txt.", thinkingSignature: "c2lnbmVk", toolCalls: TURNS[0]?.toolCalls },
      ...TURNS.slice(1),
    ];
    const { url } = await serve(signed);
    const { repo, artifact } = await firstRun(url);
    const refused = await run(
      freshCheckout(repo),
      ["--resume", artifact, "--model", "openai:gpt-5.4-mini"],
      url,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("holds reasoning signed by anthropic:claude-haiku-5-5");
    expect(refused.stderr).toContain("resume with --model anthropic:claude-haiku-5-5");

    await mock?.close();
    const fresh = await serve();
    const plain = await firstRun(fresh.url);
    const carried = await run(
      freshCheckout(plain.repo),
      ["--resume", plain.artifact, "--model", "openai:gpt-5.4-mini"],
      fresh.url,
    );
    expect(carried.code).toBe(0);
    expect(carried.stderr).toContain("carries over as it is");
  }, 60_000);
});
