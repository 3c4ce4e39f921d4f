import path from "node:path";
import type { AnyAgentTool } from "../core/types.ts";
import type { LoadedTask, ToolSpec } from "../spec/index.ts";
import {
  createBashTool,
  createEditTool,
  createFindTool,
  createGrepTool,
  createLsTool,
  createReadTool,
  createWriteTool,
} from "../tools/index.ts";

/** Paths the agent may never change, whatever the spec says: git internals and CI definitions. */
export const ALWAYS_PROTECTED = [".git", ".git/**", ".github/workflows/**"];

/**
 * The protected globs of a run, relative to the workspace: the fixed ones, the task file, the
 * hook scripts it runs and the outputs dir (when they lie inside the workspace), plus the spec's own.
 */
export function protectedPaths(
  task: LoadedTask,
  workspace: string,
  outDir: string,
  extra: string[] = [],
): string[] {
  const inside = (absolute: string): string | undefined => {
    const rel = path.relative(workspace, absolute);
    return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel.split(path.sep).join("/") : undefined;
  };
  const globs = new Set([...ALWAYS_PROTECTED, ...extra]);
  const add = (absolute: string | undefined, dir = false) => {
    const rel = absolute && inside(absolute);
    if (rel) globs.add(dir ? `${rel}/**` : rel);
  };
  if (task.file) add(task.file);
  add(outDir, true);
  const { hooks } = task.spec;
  for (const rule of [...hooks.beforeToolCall, ...hooks.afterToolCall, ...hooks.beforeStop]) {
    const first = rule.run?.text.trim().split(/\s+/, 1)[0];
    if (first?.includes("/")) add(path.resolve(workspace, first));
  }
  return [...globs];
}

/** The spec's tools, confined to the workspace, with their options applied. */
export function buildTools(
  task: LoadedTask,
  workspace: string,
  outDir: string,
  env: NodeJS.ProcessEnv,
): AnyAgentTool[] {
  return task.spec.tools.map((spec) => buildTool(spec, task, workspace, outDir, env));
}

function buildTool(
  spec: ToolSpec,
  task: LoadedTask,
  workspace: string,
  outDir: string,
  env: NodeJS.ProcessEnv,
): AnyAgentTool {
  const o = spec.options;
  const bounds = {
    ...(o.maxOutputLines !== undefined && { maxLines: o.maxOutputLines }),
    ...(o.maxOutputBytes !== undefined && { maxBytes: o.maxOutputBytes }),
  };
  switch (spec.name) {
    case "bash":
      return createBashTool(workspace, {
        ...bounds,
        env,
        ...(o.allow && { allow: o.allow }),
        ...(o.deny && { deny: o.deny }),
        ...(o.timeoutMs !== undefined && { timeoutMs: o.timeoutMs }),
        ...(o.env && { passThroughEnv: o.env }),
      });
    case "read":
      return createReadTool(workspace, bounds);
    case "write":
      return createWriteTool(workspace, {
        protectedPaths: protectedPaths(task, workspace, outDir, o.protect),
      });
    case "edit":
      return createEditTool(workspace, {
        protectedPaths: protectedPaths(task, workspace, outDir, o.protect),
      });
    case "grep":
      return createGrepTool(workspace, bounds);
    case "find":
      return createFindTool(workspace, bounds);
    case "ls":
      return createLsTool(workspace, bounds);
  }
}
