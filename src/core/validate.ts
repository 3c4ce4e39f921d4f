import { z } from "zod";
import { errorText } from "./errors.ts";
import type { AnyAgentTool, JsonSchema, ToolArgumentsCheck, ToolParameters } from "./types.ts";

function isZodSchema(parameters: ToolParameters): parameters is z.ZodType {
  return typeof (parameters as { safeParse?: unknown }).safeParse === "function";
}

const zodFromJson = new WeakMap<JsonSchema, z.ZodType>();

function zodSchemaOf(parameters: ToolParameters): z.ZodType {
  if (isZodSchema(parameters)) return parameters;
  let schema = zodFromJson.get(parameters);
  if (!schema) {
    schema = z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
    zodFromJson.set(parameters, schema);
  }
  return schema;
}

const jsonFromZod = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON Schema of a tool's parameters, as sent to providers. Converted once per schema (every
 * request of every turn asks again): the same object is returned each time, so treat it as read-only.
 */
export function toolParametersJsonSchema(tool: AnyAgentTool): JsonSchema {
  if (!isZodSchema(tool.parameters)) return tool.parameters;
  let schema = jsonFromZod.get(tool.parameters);
  if (!schema) {
    schema = z.toJSONSchema(tool.parameters, { io: "input", unrepresentable: "any" }) as JsonSchema;
    delete schema.$schema;
    jsonFromZod.set(tool.parameters, schema);
  }
  return schema;
}

export type ValidationOutcome = ToolArgumentsCheck;

/**
 * Checks raw arguments against a tool's schema (after its `prepareArguments`), or with the tool's own
 * `validateArguments` when it has one. The message lists every problem with its path, written for
 * the model to correct its call.
 */
export function validateToolArguments(tool: AnyAgentTool, args: unknown): ValidationOutcome {
  let prepared: unknown;
  try {
    prepared = tool.prepareArguments ? tool.prepareArguments(args) : args;
  } catch (error) {
    return { ok: false, message: `Could not prepare arguments: ${errorText(error)}` };
  }
  if (tool.validateArguments) return tool.validateArguments(prepared);
  const parsed = zodSchemaOf(tool.parameters).safeParse(prepared);
  if (parsed.success) return { ok: true, value: parsed.data };
  const lines = parsed.error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join(".") : "(root)";
    return `- ${path}: ${issue.message}`;
  });
  return {
    ok: false,
    message: `Invalid arguments for tool "${tool.name}":\n${lines.join("\n")}\nReceived: ${safeJson(args)}`,
  };
}

function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  } catch {
    return String(value);
  }
}
