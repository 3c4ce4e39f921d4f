import { describe, expect, test } from "vitest";
import { z } from "zod";
import type { AnyAgentTool } from "../src/core/types.ts";
import { toolParametersJsonSchema } from "../src/core/validate.ts";

const tool = {
  name: "read",
  label: "Read",
  description: "Read a file",
  parameters: z.strictObject({ path: z.string().min(1), limit: z.number().int().optional() }),
  execute: async () => ({ content: [], details: {} }),
} as unknown as AnyAgentTool;

describe("tool parameter schemas sent to providers", () => {
  test("a zod schema is converted once and the same JSON Schema reused on every request", () => {
    const first = toolParametersJsonSchema(tool);
    expect(first).toEqual({
      type: "object",
      properties: {
        path: { type: "string", minLength: 1 },
        limit: { type: "integer", minimum: expect.any(Number), maximum: expect.any(Number) },
      },
      required: ["path"],
      additionalProperties: false,
    });
    expect(toolParametersJsonSchema(tool)).toBe(first);
  });
});
