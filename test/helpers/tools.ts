import { z } from "zod";
import type { AgentTool, AgentToolResult, AnyAgentTool, ToolExecutionMode } from "../../src/core/index.ts";

/** Records [start, end] times of each call so tests can check overlap. */
export interface Timeline {
  spans: Array<{ id: string; start: number; end: number }>;
}

/** A tool that waits `ms` (abortable), records its span and answers with its id. */
export function sleepTool(
  timeline: Timeline,
  options: { name?: string; mode?: ToolExecutionMode } = {},
): AnyAgentTool {
  const tool: AgentTool<{ id: string; ms: number }, { id: string }> = {
    name: options.name ?? "sleep",
    label: "Sleep",
    description: "waits",
    parameters: z.object({ id: z.string(), ms: z.number() }),
    ...(options.mode && { executionMode: options.mode }),
    async execute(_callId, params, signal) {
      const start = performance.now();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, params.ms);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("aborted"));
        });
      });
      timeline.spans.push({ id: params.id, start, end: performance.now() });
      return { content: [{ type: "text", text: `slept ${params.id}` }], details: { id: params.id } };
    },
  };
  return tool;
}

export function echoTool(
  name = "echo",
  extra: Partial<AgentToolResult<{ text: string }>> = {},
): AgentTool<{ text: string }, { text: string }> {
  return {
    name,
    label: name,
    description: "echoes text",
    parameters: z.object({ text: z.string() }),
    async execute(_id, params) {
      return { content: [{ type: "text", text: params.text }], details: { text: params.text }, ...extra };
    },
  };
}

export function textOf(content: ReadonlyArray<{ type: string; text?: string }>): string {
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}
