import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { writeUsageJson } from "../src/output/usage-json.ts";
import { writeOutputs } from "../src/output/write-outputs.ts";
import { makeRecord, tempDir } from "./output-helpers.ts";

const usage = {
  input: 1000,
  output: 200,
  cacheRead: 300,
  cacheWrite: 40,
  totalTokens: 1540,
  cost: { input: 0.003, output: 0.003, cacheRead: 0.00009, cacheWrite: 0.00015, total: 0.1 + 0.2 },
};

test("usage.json holds exactly DESIGN §5's fields, snake_case, with totals over tools", async () => {
  const dir = tempDir();
  const file = await writeUsageJson(
    dir,
    makeRecord({
      conclusion: "limit",
      turns: 7,
      durationMs: 12_345.6,
      model: "openai:gpt-5-mini",
      usage,
      toolCalls: {
        bash: { calls: 4, errors: 1, blocked: 2, durationMs: 950.4 },
        edit: { calls: 3, errors: 0, blocked: 0, durationMs: 12 },
      },
    }),
    [
      { path: "a.ts", status: "modified", additions: 1, deletions: 1, binary: false },
      { path: "b.ts", status: "renamed", oldPath: "c.ts", additions: 0, deletions: 0, binary: false },
    ],
  );
  expect(file).toBe(path.join(dir, "usage.json"));
  expect(JSON.parse(fs.readFileSync(file, "utf8"))).toStrictEqual({
    conclusion: "limit",
    turns: 7,
    duration_ms: 12_346,
    model: "openai:gpt-5-mini",
    tokens: { input: 1000, output: 200, cache_read: 300, cache_write: 40, total: 1540 },
    cost_usd: 0.3,
    tool_calls: {
      total: 7,
      by_tool: {
        bash: { calls: 4, errors: 1, blocked: 2, duration_ms: 950 },
        edit: { calls: 3, errors: 0, blocked: 0, duration_ms: 12 },
      },
    },
    files_changed: 2,
  });
});

test("cost_usd is null when a model's price is unknown", async () => {
  const dir = tempDir();
  const file = await writeUsageJson(dir, makeRecord({ usage: { ...usage, costUnknown: true } }), []);
  expect(JSON.parse(fs.readFileSync(file, "utf8")).cost_usd).toBeNull();
});

test("writeOutputs writes an empty patch, usage.json and a summary saying why when the diff failed", async () => {
  const dir = path.join(tempDir(), "nested", ".agent-run");
  const paths = await writeOutputs(dir, {
    record: makeRecord({ conclusion: "error" }),
    diff: null,
    diffError: "not a directory",
  });
  expect(fs.readFileSync(paths.patchPath, "utf8")).toBe("");
  expect(JSON.parse(fs.readFileSync(paths.usagePath, "utf8")).files_changed).toBe(0);
  expect(fs.readFileSync(paths.summaryPath, "utf8")).toContain(
    "The patch could not be computed: not a directory.",
  );
  expect(fs.readdirSync(dir).sort()).toEqual(["patch.diff", "summary.md", "usage.json"]);
});

test("writeOutputs writes a latin1 patch back byte for byte", async () => {
  const dir = tempDir();
  const bytes = Buffer.from("+caf\xe9\n", "latin1");
  const paths = await writeOutputs(dir, {
    record: makeRecord(),
    diff: { patch: bytes.toString("latin1"), patchEncoding: "latin1", files: [], diffstat: "" },
  });
  expect(fs.readFileSync(paths.patchPath)).toEqual(bytes);
});

test("a file that cannot be written is reported by name after the others were written", async () => {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, "summary.md"));
  await expect(writeOutputs(dir, { record: makeRecord(), diff: null })).rejects.toThrow(/summary\.md/);
  expect(fs.existsSync(path.join(dir, "usage.json"))).toBe(true);
  expect(fs.existsSync(path.join(dir, "patch.diff"))).toBe(true);
});
