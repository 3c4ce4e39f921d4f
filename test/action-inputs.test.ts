import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as core from "@actions/core";
import { afterEach, describe, expect, test } from "vitest";
import { eventTarget } from "../src/action/event-target.ts";
import { readActionInputs } from "../src/action/inputs.ts";
import { readKeyEnvNames, splitRunEnvironment } from "../src/action/run-environment.ts";

const saved: Record<string, string | undefined> = {};
function setInputEnv(vars: Record<string, string>): void {
  for (const [name, value] of Object.entries(vars)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
}
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const fixture = async (name: string): Promise<unknown> =>
  JSON.parse(await readFile(path.join(import.meta.dirname, "fake-github/fixtures", name), "utf8"));

describe("readActionInputs", () => {
  test("reads INPUT_* variables named as the runner names them (upper case, hyphens kept)", () => {
    setInputEnv({
      INPUT_TASK: ".github/tasks/lint.yml",
      "INPUT_GITHUB-TOKEN": "ghs_token",
      "INPUT_ANTHROPIC-API-KEY": "sk-ant",
      "INPUT_WORKING-DIRECTORY": "packages/a",
      "INPUT_MAX-TURNS": "12",
      "INPUT_MAX-COST": "1.5",
      INPUT_COMMENT: "on-change",
      INPUT_VARS: "target=src\n# comment\nlevel = strict\n",
      "INPUT_ALLOWED-BOTS": "dependabot[bot],\nRenovate",
      "INPUT_ALLOW-UNTRUSTED-CHECKOUT": "TRUE",
      INPUT_PROGRESS: "false",
      "INPUT_PROGRESS-INTERVAL": "2.5",
      "INPUT_FORCE-RERUN": "true",
    });
    expect(readActionInputs()).toEqual({
      task: ".github/tasks/lint.yml",
      prompt: undefined,
      model: undefined,
      anthropicApiKey: "sk-ant",
      openaiApiKey: undefined,
      githubToken: "ghs_token",
      comment: "on-change",
      workingDirectory: "packages/a",
      maxTurns: 12,
      maxCostUsd: 1.5,
      vars: { target: "src", level: "strict" },
      replay: undefined,
      allowedBots: ["dependabot", "renovate"],
      allowUntrustedCheckout: true,
      progress: false,
      progressIntervalMs: 2500,
      forceRerun: true,
    });
    expect(core.getInput("github-token")).toBe("ghs_token");
  });

  test.for([
    [{ prompt: "x", "max-turns": "2.5" }, "input 'max-turns': expected a positive integer, got \"2.5\""],
    [{ prompt: "x", "max-cost": "-1" }, "input 'max-cost': expected a positive number, got \"-1\""],
    [
      { prompt: "x", comment: "sometimes" },
      'input \'comment\': expected "true", "false" or "on-change", got "sometimes"',
    ],
    [{ prompt: "x", vars: "novalue" }, "input 'vars': line 1: expected KEY=VALUE, got \"novalue\""],
    [
      { prompt: "x", "allow-untrusted-checkout": "yes" },
      'input \'allow-untrusted-checkout\': expected "true" or "false", got "yes"',
    ],
    [
      { prompt: "x", "progress-interval": "0.5" },
      "input 'progress-interval': expected seconds between 1 and 3600, got \"0.5\"",
    ],
    [{ prompt: "x", "force-rerun": "1" }, 'input \'force-rerun\': expected "true" or "false", got "1"'],
    [{}, "input 'task': either 'task' (a path to task.yml) or 'prompt' is required"],
  ] as const)("rejects %o", ([values, message]) => {
    const get = (name: string) => (values as Record<string, string>)[name] ?? "";
    expect(() => readActionInputs(get)).toThrow(message);
  });

  test("defaults: comment true, no working-directory (the spec's workdir), no vars, no bots, no untrusted checkout", () => {
    const inputs = readActionInputs((name) => (name === "prompt" ? "hi" : ""));
    expect(inputs.workingDirectory).toBeUndefined();
    expect(inputs).toMatchObject({
      comment: "true",
      vars: {},
      allowedBots: [],
      allowUntrustedCheckout: false,
      progress: true,
      progressIntervalMs: 5000,
      forceRerun: false,
    });
  });
});

describe("eventTarget", () => {
  test("pull_request: the PR number", async () => {
    expect(eventTarget("pull_request", await fixture("pull_request.json"))).toEqual({
      issueNumber: 42,
      isPullRequest: true,
      fromFork: false,
    });
  });

  test("pull_request_target from a fork is marked as such", async () => {
    const payload = (await fixture("pull_request.json")) as {
      pull_request: { head: { repo: { full_name: string } } };
    };
    payload.pull_request.head.repo.full_name = "mallory/octo-repo";
    expect(eventTarget("pull_request_target", payload)).toMatchObject({ issueNumber: 42, fromFork: true });
  });

  test("issue_comment: the PR number", async () => {
    expect(eventTarget("issue_comment", await fixture("issue_comment.json"))).toEqual({
      issueNumber: 42,
      isPullRequest: true,
    });
  });

  test("push and workflow_dispatch have no comment target", async () => {
    expect(eventTarget("push", await fixture("pull_request.json"))).toBeUndefined();
    expect(eventTarget("workflow_dispatch", {})).toBeUndefined();
  });
});

describe("splitRunEnvironment", () => {
  test("the run's process environment holds no secret; credentials are handed over, the rest redacted", () => {
    const split = splitRunEnvironment(
      {
        PATH: "/usr/bin",
        "INPUT_GITHUB-TOKEN": "ghs-token",
        "INPUT_ANTHROPIC-API-KEY": "sk-ant-input",
        "INPUT_SOMETHING-UNDECLARED": "a-secret-maybe",
        INPUT_MODEL: "anthropic:claude-sonnet-4-6",
        "INPUT_WORKING-DIRECTORY": "packages/app",
        ACTIONS_RUNTIME_TOKEN: "runtime-token",
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: "oidc-token",
        ACTIONS_CACHE_URL: "https://cache.example/abc/",
        GITHUB_TOKEN: "ghs-env-token",
        NPM_TOKEN: "npm-token",
        MY_LLM_KEY: "llm-key-by-api-key-env",
        GITHUB_REPOSITORY: "o/r",
      },
      { anthropicApiKey: "sk-ant-input" },
      ["MY_LLM_KEY"],
    );
    expect(split.processEnv).toEqual({ PATH: "/usr/bin", GITHUB_REPOSITORY: "o/r" });
    expect(split.secretEnv).toEqual({
      GITHUB_TOKEN: "ghs-env-token",
      NPM_TOKEN: "npm-token",
      MY_LLM_KEY: "llm-key-by-api-key-env",
      ANTHROPIC_API_KEY: "sk-ant-input",
    });
    expect(split.secretValues.sort()).toEqual(
      [
        "ghs-token",
        "sk-ant-input",
        "a-secret-maybe",
        "runtime-token",
        "oidc-token",
        "https://cache.example/abc/",
      ].sort(),
    );
  });

  test("api_key_env names are read from the spec's models, prepare_next_turn's included", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-key-env-"));
    const file = path.join(dir, "task.yml");
    await writeFile(
      file,
      "model: { provider: openai, id: m, api_key_env: FIRST_KEY }\nprompt: x\nhooks:\n  prepare_next_turn:\n    - when: { turn_gte: 2 }\n      model: { provider: anthropic, id: h, api_key_env: SECOND_KEY }\n",
    );
    expect(await readKeyEnvNames(file)).toEqual(["FIRST_KEY", "SECOND_KEY"]);
    await writeFile(file, "model: [unclosed\n");
    expect(await readKeyEnvNames(file)).toEqual([]);
  });
});
