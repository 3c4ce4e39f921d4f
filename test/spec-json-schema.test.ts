import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { renderTaskJsonSchema, taskJsonSchema } from "../src/spec/index.ts";

describe("task JSON Schema", () => {
  test("the committed schema/task.schema.json is current (run `node scripts/gen-schema.ts`)", async () => {
    const committed = await readFile(new URL("../schema/task.schema.json", import.meta.url), "utf8");
    expect(committed).toBe(renderTaskJsonSchema());
  });

  test("is generated from the zod schema: DESIGN §3 fields, unknown keys refused", () => {
    const schema = taskJsonSchema() as {
      $schema: string;
      additionalProperties: boolean;
      properties: Record<string, { anyOf?: unknown[] }>;
    };
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        "caps",
        "compaction",
        "execution",
        "hooks",
        "limits",
        "mcp_servers",
        "model",
        "name",
        "output_schema",
        "outputs",
        "prompt",
        "protect",
        "review",
        "sandbox",
        "sandbox_network",
        "system",
        "tools",
        "vars",
        "workdir",
      ].sort(),
    );
    const text = JSON.stringify(schema);
    expect(text).toContain('"pattern":"^(?:\\\\d+(?:\\\\.\\\\d+)?(?:ms|s|m|h))+$"');
    expect(text).toContain('"enum":["bash","read","write","edit","grep","find","ls"]');
  });
});
