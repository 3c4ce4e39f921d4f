/**
 * The `::error::` annotation of a failed run: pointed at the task spec's `before_stop` hooks for a
 * failed check, at its `limits` for a limit, at the spec error's position for a bad spec.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AnnotationProperties } from "@actions/core";
import { isMap, LineCounter, parseDocument } from "yaml";
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

/** An annotation for a thrown error, using its `location { file, line, column }` when it has one. */
export function errorAnnotation(error: unknown, workspace: string): Annotation {
  const record = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
  const short = typeof record.shortMessage === "string" ? record.shortMessage : undefined;
  const message = short ?? (error instanceof Error ? error.message : String(error));
  const properties: AnnotationProperties = { title: "agent-run" };
  const location = record.location;
  if (typeof location === "object" && location !== null) {
    const { file, line, column } = location as Record<string, unknown>;
    if (typeof file === "string") properties.file = relativeTo(workspace, file);
    if (typeof line === "number") properties.startLine = line;
    if (typeof column === "number") properties.startColumn = column;
  }
  return { message: `agent-run: ${message}`, properties };
}

async function specPosition(
  taskFile: string | undefined,
  workspace: string,
  keyPath: string[],
): Promise<AnnotationProperties> {
  if (taskFile === undefined) return {};
  const file = relativeTo(workspace, taskFile);
  try {
    const lineCounter = new LineCounter();
    const doc = parseDocument(await readFile(taskFile, "utf8"), { lineCounter });
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
