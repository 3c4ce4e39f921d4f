import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { importWorkflowParser } from "./workflow-parser-import.ts";

const { NoOperationTraceWriter, parseWorkflow } = await importWorkflowParser();

const dir = path.join(import.meta.dirname, "../examples/workflows");
const files = (await readdir(dir)).filter((f) => f.endsWith(".yml")).sort();
const NAMED_IN_ISSUE = [
  "issue-to-pr.yml",
  "lint-autofix.yml",
  "monorepo-matrix.yml",
  "pr-review-verdict.yml",
  "pr-review.yml",
  "resume-after-timeout.yml",
];

/** Scopes a job may write to, per workflow: least privilege means nothing beyond what it does. */
const ALLOWED_WRITES: Record<string, string[]> = {
  "lint-autofix.yml": ["contents", "pull-requests"],
  "pr-review.yml": ["pull-requests"],
  "pr-review-verdict.yml": ["pull-requests"],
  "issue-to-pr.yml": ["contents", "pull-requests"],
  "monorepo-matrix.yml": ["contents", "pull-requests"],
  "resume-after-timeout.yml": ["contents", "pull-requests"],
};

describe("example workflows", () => {
  test("the four of the issue exist, the resumed job of issue 14 and the verdict review (output_schema)", () => {
    expect(files).toEqual(NAMED_IN_ISSUE);
  });

  test("the parser does report a broken workflow (the check is not vacuous)", () => {
    const content =
      "on: push\npermissions: { contents: bogus }\njobs:\n  a:\n    runs-on: ubuntu-latest\n    stepz: []\n";
    const result = parseWorkflow({ name: "broken.yml", content }, new NoOperationTraceWriter());
    expect(result.context.errors.getErrors().length).toBeGreaterThan(0);
  });

  test.for(files)("%s is valid for GitHub's own workflow parser", async (file) => {
    const content = await readFile(path.join(dir, file), "utf8");
    const result = parseWorkflow({ name: file, content }, new NoOperationTraceWriter());
    expect(result.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    expect(result.value).toBeDefined();
  });

  test.for(files)("%s grants least-privilege permissions", async (file) => {
    const workflow = parse(await readFile(path.join(dir, file), "utf8")) as {
      permissions?: unknown;
      jobs: Record<string, { permissions?: unknown; steps?: Array<{ uses?: string }> }>;
    };
    // Nothing at the top: each job says what it needs.
    expect(workflow.permissions).toEqual({});
    let usesAction = false;
    for (const [id, job] of Object.entries(workflow.jobs)) {
      expect(job.permissions, `job ${id} states its permissions`).toBeTypeOf("object");
      const writes = Object.entries(job.permissions as Record<string, string>)
        .filter(([, level]) => level === "write")
        .map(([scope]) => scope);
      for (const scope of writes) expect(ALLOWED_WRITES[file], `job ${id} writes ${scope}`).toContain(scope);
      usesAction ||= (job.steps ?? []).some((s) => s.uses?.startsWith("agent-run/agent-run@"));
    }
    expect(usesAction).toBe(true);
  });
});
