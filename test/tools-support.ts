import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AgentContext, AgentTool, AgentToolResult, TextContent } from "../src/core/types.ts";

/** A fresh temp folder holding `files` (path → content); returns its real path. */
export async function makeWorkspace(files: Record<string, string | Buffer> = {}): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "agent-run-tools-")));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

export const emptyContext: AgentContext = { systemPrompt: "", messages: [], tools: [] };

/** Runs a tool the way the agent loop does, minus validation. */
export async function run<P, D>(
  tool: AgentTool<P, D>,
  params: P,
  options: { signal?: AbortSignal; onUpdate?: (partial: AgentToolResult<D>) => void; id?: string } = {},
): Promise<AgentToolResult<D>> {
  return tool.execute(
    options.id ?? "call-1",
    params,
    options.signal ?? new AbortController().signal,
    options.onUpdate ?? (() => {}),
    emptyContext,
  );
}

/** The text of a result's first text part. */
export function textOf(result: AgentToolResult<unknown>): string {
  const part = result.content.find((item): item is TextContent => item.type === "text");
  return part?.text ?? "";
}

/** The message a tool call fails with (the loop turns it into an error result). */
export async function failureOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the tool call to fail");
}

/** True while `pid` runs; a zombie (exited, not yet reaped by its new parent) counts as gone. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}
