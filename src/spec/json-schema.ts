import { z } from "zod";
import { taskSchema } from "./schema.ts";

/** Where the published schema lives; editors find it through `# yaml-language-server: $schema=`. */
export const TASK_SCHEMA_ID =
  "https://raw.githubusercontent.com/agent-run/agent-run/main/schema/task.schema.json";

/**
 * The JSON Schema (draft 2020-12) of a task file, generated from the zod schema that validates
 * it, so the two cannot disagree. Describes the input as written (durations as strings, …).
 */
export function taskJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(taskSchema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return {
    $schema: schema.$schema,
    title: "agent-run task",
    description: "A task for agent-run: what the agent does, with which tools, limits and hooks.",
    ...Object.fromEntries(Object.entries(schema).filter(([key]) => key !== "$schema")),
  };
}

/** The schema file's exact text: two-space JSON and a final newline. */
export function renderTaskJsonSchema(): string {
  return `${JSON.stringify(taskJsonSchema(), null, 2)}\n`;
}
