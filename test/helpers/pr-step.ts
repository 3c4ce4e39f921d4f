/**
 * The built action as a step of a pull-request workflow, for the PR-native tests: a workspace (a
 * plain folder, or a checkout given by the test), the fixtures' events (editable), the fake GitHub
 * and the mock LLM on loopback.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type ActionRun, type Interrupt, runActionBundle } from "../fake-github/actions-runner.ts";
import type { FakeGitHub } from "../fake-github/server.ts";
import type { MockLlm } from "../mock-llm/server.ts";
import { BUILT_ACTION } from "./built.ts";

export const API_KEY = "sk-ant-pr-native-0123456789abcdef";
export const TOKEN = "ghs_prNativeToken0123456789abcdef";
export const FIXTURE_HEAD = "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c";
const fixtures = path.join(import.meta.dirname, "..", "fake-github", "fixtures");

export type Payload = Record<string, unknown> & {
  pull_request?: { head: { sha: string; ref: string }; base: { sha: string; ref: string }; number: number };
  comment?: { body: string; user: { login: string; type: string } };
  sender?: { login: string; type: string };
};

export interface PrStepOptions {
  llm: MockLlm;
  github: FakeGitHub;
  task: string;
  event?: "pull_request" | "issue_comment" | "push";
  /** The event's payload; default: the fixture of `event` (pull_request.json, issue_comment.json). */
  payload?: Payload;
  editPayload?: (payload: Payload) => void;
  inputs?: Record<string, string>;
  env?: Record<string, string>;
  /** The checkout to run in; default: a new folder holding task.yml. */
  workspace?: string;
  interrupt?: Interrupt;
  timeoutMs?: number;
}

export async function runPrStep(options: PrStepOptions): Promise<ActionRun & { workspace: string }> {
  const workspace = options.workspace ?? (await mkdtemp(path.join(os.tmpdir(), "agent-run-pr-step-")));
  await writeFile(path.join(workspace, "task.yml"), options.task);
  const event = options.event ?? "pull_request";
  const payload =
    options.payload ?? (JSON.parse(await readFile(path.join(fixtures, `${event}.json`), "utf8")) as Payload);
  options.editPayload?.(payload);
  const run = await runActionBundle({
    main: BUILT_ACTION,
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
    env: { GITHUB_API_URL: options.github.url, ANTHROPIC_BASE_URL: options.llm.url, ...options.env },
    ...(options.interrupt && { interrupt: options.interrupt }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
  return { ...run, workspace };
}

/** Runs git in `cwd` with a fixed identity; returns its stdout, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

/** The requests on issue comments (not the identity, commit or pull request lookups). */
export function commentCalls(github: FakeGitHub, method: string) {
  return github.requests.filter((r) => r.method === method && /\/comments(\/|$)/.test(r.path));
}
