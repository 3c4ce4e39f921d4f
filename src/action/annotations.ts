/**
 * The `::error::` annotation of a failed run: pointed at the task spec's `before_stop` hooks for a
 * failed check, at its `limits` for a limit, at the spec error's position for a bad spec.
 */
import path from "node:path";
import type { AnnotationProperties } from "@actions/core";
import { isMap } from "yaml";
import { errorText, exitCodeOf } from "../core/errors.ts";
import { peekTaskDocument } from "../spec/spec-file.ts";
import type { ActionRunResult } from "./runner-types.ts";

export interface Annotation {
  message: string;
  properties: AnnotationProperties;
}

/** `undefined` for a successful run. `workspace` makes the file path repository-relative. */
export async function runAnnotation(
  result: ActionRunResult,
  taskFile: string | undefined,
  workspace: string,
): Promise<Annotation | undefined> {
  const reason = result.reason ? `: ${result.reason}` : "";
  switch (result.conclusion) {
    case "success":
      return undefined;
    case "failure":
      return {
        message: `agent-run: before_stop checks still failing${reason}`,
        properties: {
          title: "agent-run failed",
          ...(await specPosition(taskFile, workspace, ["hooks", "before_stop"])),
        },
      };
    case "limit":
      return {
        message: `agent-run: stopped by a limit${reason}`,
        properties: { title: "agent-run limit", ...(await specPosition(taskFile, workspace, ["limits"])) },
      };
    case "interrupted":
      return { message: `agent-run: interrupted${reason}`, properties: { title: "agent-run interrupted" } };
    default:
      return {
        message: `agent-run: infrastructure error${reason}`,
        properties: { title: "agent-run error (retry the job)" },
      };
  }
}

/**
 * Annotations for an error thrown before the run started. A spec error (`code: "spec_*"`, with
 * `problems: [{ file, line, column, message }]`) gives one per problem (at most 10), positioned;
 * anything else gives one, positioned by its `location { file, line, column }` when it has one.
 */
export function errorAnnotations(error: unknown, workspace: string): Annotation[] {
  const record = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
  const problems = Array.isArray(record.problems) ? (record.problems as unknown[]) : [];
  const positioned = problems.slice(0, 10).flatMap((problem) => {
    if (typeof problem !== "object" || problem === null) return [];
    const p = problem as Record<string, unknown>;
    const where = typeof p.path === "string" && p.path !== "" ? `${p.path}: ` : "";
    const message = `agent-run: ${where}${typeof p.message === "string" ? p.message : "invalid task spec"}`;
    return [{ message, properties: { title: "agent-run: task spec error", ...position(p, workspace) } }];
  });
  if (positioned.length > 0) return positioned;
  const short = typeof record.shortMessage === "string" ? record.shortMessage : undefined;
  const message = short ?? errorText(error);
  const location = typeof record.location === "object" && record.location !== null ? record.location : {};
  return [
    {
      message: `agent-run: ${message}`,
      properties: { title: "agent-run", ...position(location as Record<string, unknown>, workspace) },
    },
  ];
}

/** DESIGN §4 for an error thrown before the run: its kind's code (2 for usage), else 4. */
export function errorExitCode(error: unknown): number {
  return exitCodeOf(error);
}

function position(where: Record<string, unknown>, workspace: string): AnnotationProperties {
  const properties: AnnotationProperties = {};
  if (typeof where.file === "string" && where.file !== "")
    properties.file = relativeTo(workspace, where.file);
  // Line 0 means "not in the file" (a command-line override).
  if (typeof where.line === "number" && where.line > 0) {
    properties.startLine = where.line;
    if (typeof where.column === "number" && where.column > 0) properties.startColumn = where.column;
  }
  return properties;
}

async function specPosition(
  taskFile: string | undefined,
  workspace: string,
  keyPath: string[],
): Promise<AnnotationProperties> {
  if (taskFile === undefined) return {};
  const file = relativeTo(workspace, taskFile);
  try {
    const peeked = await peekTaskDocument(taskFile);
    if (!peeked) return { file };
    const { doc, lineCounter } = peeked;
    let node: unknown = doc.contents;
    let keyOffset: number | undefined;
    for (const key of keyPath) {
      if (!isMap(node)) break;
      const pair = node.items.find((item) => (item.key as { value?: unknown } | null)?.value === key);
      if (!pair) break;
      keyOffset = (pair.key as { range?: [number, number, number] }).range?.[0];
      node = pair.value;
    }
    if (keyOffset === undefined) return { file };
    return { file, startLine: lineCounter.linePos(keyOffset).line };
  } catch {
    return { file };
  }
}

function relativeTo(workspace: string, file: string): string {
  const relative = path.relative(workspace, path.resolve(workspace, file));
  return relative.split(path.sep).join("/");
}
