/**
 * Tool parameter schemas every provider accepts. Anthropic's `input_schema` and OpenAI's function
 * `parameters` (Responses and Chat Completions, which we send with `strict: false` or without
 * `strict`) take JSON Schema whose root is `type: "object"`; Anthropic refuses `oneOf`, `allOf`
 * and `anyOf` at the root, OpenAI a root of any other type, and some OpenAI-compatible servers a
 * root without `properties`. Below the root, schemas go as given. (Strict modes, which we do not
 * use, would further require every property listed in `required` and `additionalProperties:
 * false` everywhere.)
 *
 * What is offered may be looser than the schema: arguments are still checked against the schema
 * as given (system/json-schema-check.ts).
 */
import type { JsonSchema } from "../core/types.ts";

/** Root keywords that providers refuse or that narrow the root beyond `type: object`. */
const ROOT_COMBINATORS = ["anyOf", "oneOf", "allOf", "not", "if", "then", "else", "enum", "const"] as const;

/** Whether `schema` can be offered as it is: an object root without root combinators. */
export function isOfferableRoot(schema: JsonSchema): boolean {
  return schema.type === "object" && ROOT_COMBINATORS.every((key) => schema[key] === undefined);
}

/**
 * An MCP tool's `inputSchema` as the providers accept it: `$schema` dropped, the root made
 * `type: "object"` with `properties` (`{}` when absent) and without root combinators. The schema
 * is not changed.
 */
export function offeredInputSchema(schema: JsonSchema): JsonSchema {
  const offered: JsonSchema = { ...schema, type: "object" };
  delete offered.$schema;
  for (const key of ROOT_COMBINATORS) delete offered[key];
  if (typeof offered.properties !== "object" || offered.properties === null) offered.properties = {};
  return offered;
}
