/**
 * The structured result of a task with `output_schema` (DESIGN §7): the tool `submit_result`,
 * whose parameters are the schema, and the rule that a run with a schema only succeeds with a
 * valid result.
 *
 * - A call whose arguments break the schema gets an error result listing each violation (ajv,
 *   system/json-schema-check.ts), or saying it is too large (`MAX_RESULT_BYTES`); the model may
 *   call again.
 * - A valid call runs the spec's `before_stop` checks first, as a stop would: failing, the result is
 *   not taken and the model hears why (or, past `max_attempts`, the run fails); passing, the result
 *   is taken and the run ends after this turn, with success: no model request follows.
 * - A model that stops without a valid result is asked once more; stopping again ends the run as
 *   a failure (exit 1), without `result.json`.
 *
 * The providers take a tool's parameters only with an object root (mcp/tool-schema.ts): any other
 * schema is offered wrapped as `{ result: <schema> }` (its local `$ref`s moved along), and the
 * value taken is `result`. Arguments are always checked against the schema as given.
 */
import type { AgentTool, BeforeStopHook, JsonSchema } from "../core/types.ts";
import { isOfferableRoot } from "../mcp/tool-schema.ts";
import type { OutputSchemaSpec } from "../spec/index.ts";
import { compileJsonSchema } from "../system/json-schema-check.ts";
import { type StructuredResult, SUBMIT_RESULT_TOOL } from "./result-state.ts";
import { RunSetupError } from "./types.ts";

/**
 * Bytes of a result's compact JSON at most: 1,000,000. GitHub keeps a step output of at most 1 MB
 * (the action output `result`), and a pipeline's decision is far smaller.
 */
export const MAX_RESULT_BYTES = 1_000_000;

export interface SubmitResultDetails {
  accepted: boolean;
  failure?: string;
}

/**
 * The result state and the `submit_result` tool of a schema. Throws `RunSetupError` (exit 2) when
 * the schema cannot be compiled (an inline schema of a task built without `loadTask`).
 */
export function createStructuredResult(
  spec: OutputSchemaSpec,
  checks: () => BeforeStopHook | undefined,
): { state: StructuredResult; tool: AgentTool<Record<string, unknown>, SubmitResultDetails> } {
  const compiled = compileJsonSchema(spec.schema, { strict: true });
  if (!compiled.ok) {
    const first = compiled.problems[0];
    const where = first && first.path.length > 0 ? ` at ${first.path.join(".")}` : "";
    throw new RunSetupError("output_schema_invalid", `output_schema${where}: ${first?.message ?? "invalid"}`);
  }
  const wrapped = !isOfferableRoot(spec.schema);
  const state: StructuredResult = { value: undefined, accepted: false, failure: undefined, reminded: false };
  let checkRuns = 0;
  const tool: AgentTool<Record<string, unknown>, SubmitResultDetails> = {
    name: SUBMIT_RESULT_TOOL,
    label: "Submit result",
    description: `Submit the task's result when the task is done. The arguments are the result${wrapped ? ", under `result`" : ""}, and must match this tool's schema; an invalid result is refused with each problem listed, and you may call again. A valid result ends the run.${schemaNote(spec.schema)}`,
    parameters: wrapped ? wrapSchema(spec.schema) : offeredSchema(spec.schema),
    executionMode: "sequential",
    validateArguments(args) {
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        return { ok: false, message: "The arguments of submit_result must be a JSON object." };
      }
      const value = wrapped ? (args as { result?: unknown }).result : args;
      if (wrapped && !Object.hasOwn(args, "result")) {
        return { ok: false, message: "The result was not accepted: put it under `result`." };
      }
      const violations = compiled.schema.check(value);
      const bytes = Buffer.byteLength(JSON.stringify(value) ?? "");
      if (violations.length === 0 && bytes > MAX_RESULT_BYTES) {
        return {
          ok: false,
          message: `The result was not accepted: it is ${bytes} bytes as JSON, more than the ${MAX_RESULT_BYTES} a result may have. Submit a shorter result.`,
        };
      }
      if (violations.length === 0) return { ok: true, value: args };
      return {
        ok: false,
        message: `The result was not accepted; it does not match the schema:\n${violations.join("\n")}\nFix each problem and call submit_result again.`,
      };
    },
    async execute(_id, args, signal, _onUpdate, context) {
      const value = wrapped ? (args as { result?: unknown }).result : args;
      const hook = checks();
      if (hook) {
        const message = context.messages.findLast((m) => m.role === "assistant");
        const verdict =
          message?.role === "assistant"
            ? await hook({ message, context, attempt: checkRuns++ }, signal)
            : undefined;
        if (verdict?.fail !== undefined) {
          state.failure = verdict.fail;
          return {
            content: [
              { type: "text", text: `The result was not accepted and the run ends: ${verdict.fail}` },
            ],
            details: { accepted: false, failure: verdict.fail },
            isError: true,
            terminate: true,
          };
        }
        if (verdict?.continue !== undefined) {
          return {
            content: [{ type: "text", text: `The result was not accepted yet. ${verdict.continue}` }],
            details: { accepted: false },
            isError: true,
          };
        }
      }
      state.value = value;
      state.accepted = true;
      return {
        content: [{ type: "text", text: "Result accepted. The run ends now." }],
        details: { accepted: true },
        terminate: true,
      };
    },
  };
  return { state, tool };
}

/** The schema offered as is, without `$schema` (it says nothing to a model). */
function offeredSchema(schema: JsonSchema): JsonSchema {
  const offered = { ...schema };
  delete offered.$schema;
  return offered;
}

/** `{ result: schema }`, with the schema's local `$ref`s pointing where it now is. */
function wrapSchema(schema: JsonSchema): JsonSchema {
  const inner = rebaseRefs(offeredSchema(schema), "#/properties/result") as JsonSchema;
  return { type: "object", properties: { result: inner }, required: ["result"], additionalProperties: false };
}

function rebaseRefs(value: unknown, base: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rebaseRefs(item, base));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] =
      key === "$ref" && typeof child === "string" && child.startsWith("#")
        ? `${base}${child.slice(1)}`
        : rebaseRefs(child, base);
  }
  return out;
}

/** The schema's own title and description, when it has them, for the tool's description. */
function schemaNote(schema: JsonSchema): string {
  const parts = [schema.title, schema.description].filter((part): part is string => typeof part === "string");
  return parts.length > 0 ? ` The result: ${parts.join(": ")}` : "";
}
