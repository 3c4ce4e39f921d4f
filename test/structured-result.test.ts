/**
 * A task with `output_schema`, through the built CLI: the model gets `submit_result` with the schema
 * as its parameters (on each wire format); an invalid call gets each violation back; a valid one
 * ends the run with success (no model request follows) and result.json holding it; a model that
 * stops without a result is asked exactly once more, then the run fails with exit 1 and no
 * result.json (an earlier run's is gone too). A schema that is not an object is offered under
 * `result`; one over 1 MB is refused; the spec's before_stop checks hold a submission back until
 * they pass.
 */
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "./helpers/cli.ts";
import { endsById, offeredTools, runMcpTask, textOf, WIRE_FORMATS } from "./helpers/mcp.ts";

const REVIEW_SCHEMA = {
  type: "object",
  properties: {
    verdict: { enum: ["approve", "request_changes"] },
    findings: {
      type: "array",
      items: {
        type: "object",
        properties: { file: { type: "string" }, line: { type: "integer", minimum: 1 } },
        required: ["file", "line"],
      },
    },
  },
  required: ["verdict", "findings"],
  additionalProperties: false,
};

const task = (model: string, schema: string, extra = "") => `name: review
model: ${model}
prompt: Review the change.
tools: [read, write]
output_schema: ${schema}
${extra}`;

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe.each(WIRE_FORMATS)("submit_result on the $name wire format", ({ model }) => {
  test("invalid, then valid: violations listed, then the run ends at once with result.json", {
    timeout: 30_000,
  }, async () => {
    const dir = await tempWorkspace();
    const valid = { verdict: "request_changes", findings: [{ file: "src/a.ts", line: 3 }] };
    const run = await runMcpTask(dir, task(model, JSON.stringify(REVIEW_SCHEMA)), [
      {
        toolCalls: [
          {
            id: "s1",
            name: "submit_result",
            arguments: { verdict: "maybe", findings: [{ file: "a", line: 0 }], mood: "ok" },
          },
        ],
      },
      { toolCalls: [{ id: "s2", name: "submit_result", arguments: valid }] },
      { text: "never asked" },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.llm.requests).toHaveLength(2);
    expect(offeredTools(run.llm.requests[0]).submit_result).toEqual(REVIEW_SCHEMA);
    const ends = endsById(run.events);
    expect(ends.get("s1")?.isError).toBe(true);
    const violations = textOf(ends.get("s1"));
    expect(violations).toContain('- (root): unexpected property "mood"');
    expect(violations).toContain('- /verdict: must be one of "approve", "request_changes"');
    expect(violations).toContain("- /findings/0/line: must be >= 1");
    expect(ends.get("s2")?.isError).toBe(false);
    expect(JSON.parse(await readFile(path.join(run.outDir, "result.json"), "utf8"))).toEqual(valid);
    expect(run.usage.conclusion).toBe("success");
    expect(run.summary).toContain("#### Result");
    expect(run.summary).toContain("<details><summary>result.json</summary>");
    expect(run.summary).toContain('"request_changes"');
  });
});

describe("a task with output_schema", { timeout: 30_000 }, () => {
  test("a model that never submits is asked once more, then fails: exit 1, no result.json", async () => {
    const dir = await tempWorkspace();
    // An earlier run's result must not pass for this one's.
    const first = await runMcpTask(dir, task(WIRE_FORMATS[0].model, JSON.stringify(REVIEW_SCHEMA)), [
      { toolCalls: [{ id: "s1", name: "submit_result", arguments: { verdict: "approve", findings: [] } }] },
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(await exists(path.join(first.outDir, "result.json"))).toBe(true);

    const run = await runMcpTask(dir, task(WIRE_FORMATS[0].model, JSON.stringify(REVIEW_SCHEMA)), [
      { text: "Looks fine to me." },
      { text: "Really, it is fine." },
      { text: "never asked" },
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.llm.requests).toHaveLength(2);
    const reminder = JSON.stringify(run.llm.requests[1]?.body.messages);
    expect(reminder).toContain(
      "You stopped without submitting the task's result. Call the submit_result tool now",
    );
    expect(await exists(path.join(run.outDir, "result.json"))).toBe(false);
    expect(run.usage.conclusion).toBe("failure");
    expect(run.summary).toContain("the model stopped without submitting a valid result (submit\\_result)");
    expect(run.summary).not.toContain("#### Result");
  });

  test("a model that submits once reminded succeeds; a flat result is a table in the summary", async () => {
    const dir = await tempWorkspace();
    const schema = {
      type: "object",
      properties: { verdict: { type: "string" }, score: { type: "number" } },
      required: ["verdict"],
    };
    const run = await runMcpTask(dir, task(WIRE_FORMATS[0].model, JSON.stringify(schema)), [
      { text: "Done." },
      {
        toolCalls: [
          { id: "s1", name: "submit_result", arguments: { verdict: "approve | ship it", score: 0.9 } },
        ],
      },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.llm.requests).toHaveLength(2);
    expect(run.summary).toContain(
      "| Field | Value |\n| --- | --- |\n| verdict | approve \\| ship it |\n| score | 0.9 |",
    );
  });

  test("a schema whose root is not an object is offered under `result`; result.json is the value", async () => {
    const dir = await tempWorkspace();
    const schema = {
      type: "array",
      items: { $ref: "#/$defs/label" },
      $defs: { label: { enum: ["bug", "docs"] } },
    };
    const run = await runMcpTask(dir, task(WIRE_FORMATS[1].model, JSON.stringify(schema)), [
      { toolCalls: [{ id: "s1", name: "submit_result", arguments: { result: ["bug", "feature"] } }] },
      { toolCalls: [{ id: "s2", name: "submit_result", arguments: { result: ["bug", "docs"] } }] },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(offeredTools(run.llm.requests[0]).submit_result).toEqual({
      type: "object",
      properties: {
        result: { type: "array", items: { $ref: "#/properties/result/$defs/label" }, $defs: schema.$defs },
      },
      required: ["result"],
      additionalProperties: false,
    });
    expect(textOf(endsById(run.events).get("s1"))).toContain('- /1: must be one of "bug", "docs"');
    expect(JSON.parse(await readFile(path.join(run.outDir, "result.json"), "utf8"))).toEqual(["bug", "docs"]);
  });

  test("a result over 1 MB as JSON is refused (a GitHub step output holds no more); a shorter one is taken", async () => {
    const dir = await tempWorkspace();
    const schema = { type: "object", properties: { notes: { type: "array", items: { type: "string" } } } };
    const huge = { notes: Array.from({ length: 1100 }, () => "x".repeat(1000)) };
    const run = await runMcpTask(dir, task(WIRE_FORMATS[0].model, JSON.stringify(schema)), [
      { toolCalls: [{ id: "s1", name: "submit_result", arguments: huge }] },
      { toolCalls: [{ id: "s2", name: "submit_result", arguments: { notes: ["short"] } }] },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const ends = endsById(run.events);
    expect(ends.get("s1")?.isError).toBe(true);
    expect(textOf(ends.get("s1"))).toContain("more than the 1000000 a result may have");
    expect(JSON.parse(await readFile(path.join(run.outDir, "result.json"), "utf8"))).toEqual({
      notes: ["short"],
    });
  });

  test("before_stop checks hold a submission back until they pass", async () => {
    const dir = await tempWorkspace();
    const yaml = task(
      WIRE_FORMATS[0].model,
      JSON.stringify({ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }),
      "sandbox: off\nhooks:\n  before_stop:\n    - run: test -f done.txt\n",
    );
    const run = await runMcpTask(dir, yaml, [
      { toolCalls: [{ id: "s1", name: "submit_result", arguments: { ok: true } }] },
      { toolCalls: [{ id: "w1", name: "write", arguments: { path: "done.txt", content: "yes\n" } }] },
      { toolCalls: [{ id: "s2", name: "submit_result", arguments: { ok: true } }] },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.llm.requests).toHaveLength(3);
    const ends = endsById(run.events);
    expect(ends.get("s1")?.isError).toBe(true);
    expect(textOf(ends.get("s1"))).toContain(
      "The result was not accepted yet. The check `test -f done.txt` failed",
    );
    expect(ends.get("s2")?.isError).toBe(false);
    expect(JSON.parse(await readFile(path.join(run.outDir, "result.json"), "utf8"))).toEqual({ ok: true });
  });
});
