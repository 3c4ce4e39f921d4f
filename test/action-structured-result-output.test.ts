/**
 * The built action with a task that has `output_schema`, against the fake GitHub API and the mock
 * LLM: the model's valid submission is the step's `result` output (compact JSON), result.json and
 * a table in the step summary and the PR comment; a run without a valid result leaves `result`
 * empty and fails the step (exit 1).
 */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runActionBundle } from "./fake-github/actions-runner.ts";
import { type FakeGitHub, startFakeGitHub } from "./fake-github/server.ts";
import { BUILT_ACTION } from "./helpers/built.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

const fixtures = path.join(import.meta.dirname, "fake-github/fixtures");
const TASK = `name: review-verdict
model: anthropic:claude-sonnet-4-6
prompt: Review the pull request.
tools: [read]
output_schema:
  type: object
  properties:
    verdict: { enum: [approve, request_changes] }
    summary: { type: string }
  required: [verdict, summary]
  additionalProperties: false
`;

let llm: MockLlm | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await llm?.close();
  await github?.close();
  llm = undefined;
  github = undefined;
});

async function runStep(script: MockReply[]) {
  llm = await startMockLlm({ script });
  github = await startFakeGitHub({});
  const workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-action-result-"));
  await writeFile(path.join(workspace, "task.yml"), TASK);
  const payload = JSON.parse(await readFile(path.join(fixtures, "pull_request.json"), "utf8"));
  const run = await runActionBundle({
    main: BUILT_ACTION,
    eventName: "pull_request",
    payload,
    workspace,
    inputs: {
      task: "task.yml",
      "anthropic-api-key": "sk-ant-result-test-0123456789",
      "github-token": "ghs_resultTest0123456789",
      comment: "true",
    },
    env: { GITHUB_API_URL: github.url, ANTHROPIC_BASE_URL: llm.url },
  });
  return { ...run, workspace };
}

describe("the action's result output", { timeout: 60_000 }, () => {
  test("is the model's valid submission, as compact JSON; the summary and comment show it", async () => {
    const verdict = { verdict: "request_changes", summary: "The loop | never ends." };
    const run = await runStep([
      { toolCalls: [{ name: "submit_result", arguments: { verdict: "nope", summary: "x" } }] },
      { toolCalls: [{ name: "submit_result", arguments: verdict }] },
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.outputs.conclusion).toBe("success");
    expect(run.outputs.result).toBe(JSON.stringify(verdict));
    expect(JSON.parse(await readFile(path.join(run.workspace, ".agent-run", "result.json"), "utf8"))).toEqual(
      verdict,
    );
    expect(run.stepSummary).toContain("| verdict | request\\_changes |");
    expect(github?.comments[0]?.body).toContain("| summary | The loop \\| never ends. |");
  });

  test("is empty when the model never submits; the step fails", async () => {
    const run = await runStep([{ text: "All good." }, { text: "Still all good." }]);
    expect(run.exitCode).toBe(1);
    expect(run.outputs.conclusion).toBe("failure");
    expect(run.outputs.result).toBe("");
  });
});
