import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { generateActionDocs } from "../scripts/gen-action-docs.ts";
import { DATA_INPUTS, SECRET_INPUTS } from "../src/action/inputs.ts";
import { OUTPUT_NAMES } from "../src/action/outputs.ts";
import { importActionParser, importWorkflowParser } from "./workflow-parser-import.ts";

const root = path.join(import.meta.dirname, "..");
const actionYml = await readFile(path.join(root, "action.yml"), "utf8");
const action = parse(actionYml) as {
  name: string;
  description: string;
  branding: { icon: string; color: string };
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string; post?: string };
};

describe("action.yml", () => {
  test("is valid for GitHub's action schema", async () => {
    const { NoOperationTraceWriter } = await importWorkflowParser();
    const { parseAction } = await importActionParser();
    const result = parseAction({ name: "action.yml", content: actionYml }, new NoOperationTraceWriter());
    expect(result.context.errors.getErrors().map((e) => e.message)).toEqual([]);
  });

  test("every input is either a credential (masked, redacted) or data, never unclassified", () => {
    // A new input must be listed in DATA_INPUTS (src/action/inputs.ts) to be left unredacted.
    const classified = [...SECRET_INPUTS, ...DATA_INPUTS];
    expect(Object.keys(action.inputs).filter((name) => !classified.includes(name))).toEqual([]);
    expect(SECRET_INPUTS.filter((name) => DATA_INPUTS.includes(name))).toEqual([]);
  });

  test("declares every input and output of DESIGN §6, each described", () => {
    const designInputs = [
      "task",
      "prompt",
      "model",
      "anthropic-api-key",
      "openai-api-key",
      "github-token",
      "comment",
      "working-directory",
      "max-turns",
      "max-cost",
    ];
    const designOutputs = [
      "conclusion",
      "exit-code",
      "patch",
      "changed-files",
      "cost-usd",
      "turns",
      "usage",
      "comment-url",
    ];
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(designInputs));
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(designOutputs));
    for (const spec of [...Object.values(action.inputs), ...Object.values(action.outputs)]) {
      expect(spec.description.length).toBeGreaterThan(20);
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a JS template.
    expect(action.inputs["github-token"]?.default).toBe("${{ github.token }}");
    expect(action.inputs.comment?.default).toBe("true");
  });

  test("its outputs are exactly the ones the action sets", () => {
    expect(Object.keys(action.outputs)).toEqual([...OUTPUT_NAMES]);
  });

  test("runs dist/index.js on node24, with branding", () => {
    expect(action.runs).toEqual({ using: "node24", main: "dist/index.js" });
    expect(action.branding.icon).toBeTruthy();
    expect(action.name).toBe("agent-run");
  });

  test("docs/action.md tables are current (node scripts/gen-action-docs.ts)", async () => {
    const { current, next } = await generateActionDocs(root);
    expect(current).toBe(next);
    expect(current).toMatch(/^\| `max-cost` +\| Maximum spend in USD/m);
  });
});
