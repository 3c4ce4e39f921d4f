import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { errorAnnotations, errorExitCode, runAnnotation } from "../src/action/annotations.ts";
import type { ActionRunResult } from "../src/action/runner-types.ts";
import { ProviderConfigError } from "../src/providers/errors.ts";
import { RunSetupError } from "../src/run/types.ts";
import { SpecError } from "../src/spec/errors.ts";

const TASK = `name: fix-lint
model: anthropic:claude-sonnet-4-5
prompt: Fix lint.
limits:
  max_turns: 5
hooks:
  before_stop:
    - run: npm run lint
`;

function result(conclusion: ActionRunResult["conclusion"], reason?: string): ActionRunResult {
  const dir = "/ws/.agent-run";
  return {
    conclusion,
    exitCode: { success: 0, failure: 1, limit: 3, error: 4, interrupted: 143 }[conclusion],
    reason,
    outputs: {
      dir,
      patch: `${dir}/patch.diff`,
      usage: `${dir}/usage.json`,
      summary: `${dir}/summary.md`,
      events: `${dir}/events.jsonl`,
    },
    changedFiles: [],
    costUsd: null,
    turns: 5,
    summaryMarkdown: "",
  };
}

describe("runAnnotation", async () => {
  const workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-annotations-"));
  const taskFile = path.join(workspace, ".github/tasks/fix-lint.yml");
  await mkdir(path.dirname(taskFile), { recursive: true });
  await writeFile(taskFile, TASK);

  test("a failing before_stop check points at the spec's hooks.before_stop line", async () => {
    expect(await runAnnotation(result("failure", "npm run lint exited 1"), taskFile, workspace)).toEqual({
      message: "agent-run: before_stop checks still failing: npm run lint exited 1",
      properties: { title: "agent-run failed", file: ".github/tasks/fix-lint.yml", startLine: 7 },
    });
  });

  test("a limit points at the spec's limits line", async () => {
    expect(await runAnnotation(result("limit", "max_turns (5) reached"), taskFile, workspace)).toEqual({
      message: "agent-run: stopped by a limit: max_turns (5) reached",
      properties: { title: "agent-run limit", file: ".github/tasks/fix-lint.yml", startLine: 4 },
    });
  });

  test("success has no annotation; an inline prompt has no file", async () => {
    expect(await runAnnotation(result("success"), taskFile, workspace)).toBeUndefined();
    expect((await runAnnotation(result("limit"), undefined, workspace))?.properties).toEqual({
      title: "agent-run limit",
    });
  });
});

describe("errorAnnotations", () => {
  test("a spec error gives one positioned annotation per problem and exit code 2", () => {
    const error = new SpecError("spec_invalid", [
      { file: "/ws/task.yml", line: 3, column: 5, path: "tools[0]", message: "unknown tool 'bsh'" },
      { file: "--var", line: 0, column: 0, path: "vars", message: "bad var" },
    ]);
    expect(errorAnnotations(error, "/ws")).toEqual([
      {
        message: "agent-run: vars: bad var",
        properties: { title: "agent-run: task spec error", file: "--var" },
      },
      {
        message: "agent-run: tools[0]: unknown tool 'bsh'",
        properties: { title: "agent-run: task spec error", file: "task.yml", startLine: 3, startColumn: 5 },
      },
    ]);
    expect(errorExitCode(error)).toBe(2);
  });

  test("a run that cannot start (RunSetupError: no workspace, a sandbox that must run cannot) is exit 2", () => {
    const error = new RunSetupError("sandbox_unavailable", "bubblewrap is not installed");
    expect(errorExitCode(error)).toBe(2);
    expect(errorAnnotations(error, "/ws")).toEqual([
      { message: "agent-run: bubblewrap is not installed", properties: { title: "agent-run" } },
    ]);
  });

  test("a missing API key (ProviderConfigError) is exit 2, as in the CLI", () => {
    const error = new ProviderConfigError("missing_api_key", "ANTHROPIC_API_KEY is not set");
    expect(errorExitCode(error)).toBe(2);
  });

  test("any other error is an infrastructure error (exit 4)", () => {
    expect(errorAnnotations(new Error("boom"), "/ws")).toEqual([
      { message: "agent-run: boom", properties: { title: "agent-run" } },
    ]);
    expect(errorExitCode(new Error("boom"))).toBe(4);
  });
});
