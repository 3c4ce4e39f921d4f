/** Temp workspaces, task specs and the environment that points the CLI at the mock LLM. */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** Wire formats the bench drives: Anthropic Messages and OpenAI Responses (the openai default). */
export type Wire = "anthropic" | "openai";

export const MODEL: Record<Wire, string> = {
  // Not a deprecated model: the SDK would print a deprecation warning on every request.
  anthropic: "anthropic:claude-sonnet-5-5",
  openai: "openai:gpt-5.4-mini",
};

const created: string[] = [];

/** A fresh temp folder holding `files` (relative paths; parent folders are created); see `removeWorkspaces`. */
export async function tempWorkspace(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-bench-ws-"));
  created.push(dir);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}

/** Removes every folder `tempWorkspace` made so far. */
export async function removeWorkspaces(): Promise<void> {
  for (const dir of created.splice(0)) await rm(dir, { recursive: true, force: true });
}

/**
 * A task spec with every built-in the scenarios call and room for long sessions. `sandbox`
 * defaults to the spec's default (auto: bash in bubblewrap where it starts).
 */
export function taskYaml(options: {
  wire: Wire;
  execution?: "parallel" | "sequential";
  maxTurns?: number;
  sandbox?: "auto" | "off";
  /** false: the conversation is never compacted (a scenario measuring the whole transcript). */
  compaction?: false;
  /** Default: read, edit, write, bash. */
  tools?: string[];
}): string {
  return [
    "name: bench",
    `model: ${MODEL[options.wire]}`,
    "prompt: Do the benchmark task.",
    `tools: [${(options.tools ?? ["read", "edit", "write", "bash"]).join(", ")}]`,
    `execution: ${options.execution ?? "parallel"}`,
    `limits: { max_turns: ${options.maxTurns ?? 1000} }`,
    ...(options.sandbox ? [`sandbox: ${options.sandbox}`] : []),
    ...(options.compaction === false ? ["compaction: false"] : []),
    "",
  ].join("\n");
}

/** The CLI's environment: keys and base URLs of the mock, plain (non-TTY, non-Actions) output. */
export function cliEnv(mockUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    NO_COLOR: "1",
    ANTHROPIC_API_KEY: "sk-ant-bench",
    ANTHROPIC_BASE_URL: mockUrl,
    OPENAI_API_KEY: "sk-bench",
    OPENAI_BASE_URL: `${mockUrl}/v1`,
  };
}

export interface UsageJson {
  conclusion: string;
  turns: number;
  tool_calls: { total: number; by_tool: Record<string, { calls: number; errors: number; blocked: number }> };
}

/** Reads `.agent-run/usage.json` of a workspace. */
export async function readUsage(workspace: string): Promise<UsageJson> {
  return JSON.parse(await readFile(path.join(workspace, ".agent-run", "usage.json"), "utf8")) as UsageJson;
}

/** Throws unless the run succeeded with `turns` turns and `toolCalls` tool calls, none failing. */
export async function expectRun(
  workspace: string,
  turns: number,
  toolCalls: number,
  what: string,
): Promise<void> {
  const usage = await readUsage(workspace);
  const errors = Object.values(usage.tool_calls.by_tool).reduce((sum, t) => sum + t.errors + t.blocked, 0);
  if (
    usage.conclusion !== "success" ||
    usage.turns !== turns ||
    usage.tool_calls.total !== toolCalls ||
    errors > 0
  ) {
    throw new Error(
      `${what}: expected success, ${turns} turns, ${toolCalls} tool calls without errors; usage.json says ${JSON.stringify(usage)}`,
    );
  }
}
