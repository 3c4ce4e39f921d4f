import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { formatSpecProblems, loadTask, SpecError } from "../src/spec/index.ts";

/**
 * The bad-spec corpus: every `NN-name.yml` in fixtures/bad-specs sits next to `NN-name.expected`,
 * the exact text `agent-run validate` prints for it — one positioned line per problem. Read from
 * disk as the CLI reads it (bytes: a NUL, invalid UTF-8, a BOM); cli-bad-input.test.ts runs the
 * same corpus through the built CLI.
 */
const dir = path.join(import.meta.dirname, "fixtures", "bad-specs");
const cases = readdirSync(dir)
  .filter((name) => name.endsWith(".yml"))
  .sort();

async function problemsOf(name: string): Promise<SpecError> {
  try {
    await loadTask(path.join(dir, name), { env: { HOME: "/home/test" } });
  } catch (error) {
    if (error instanceof SpecError) return error;
    throw error;
  }
  throw new Error(`${name} was accepted`);
}

/** Problems name the file as given; the expected texts name it bare. */
const bare = (text: string) => text.replaceAll(`${dir}${path.sep}`, "");

describe("bad specs", () => {
  test("the corpus holds at least 40 specs, each with its expected output", () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    for (const name of cases) expect(readdirSync(dir)).toContain(name.replace(/\.yml$/, ".expected"));
  });

  test.for(cases)("%s is rejected with its positioned problems", async (name) => {
    const error = await problemsOf(name);
    const expected = readFileSync(path.join(dir, name.replace(/\.yml$/, ".expected")), "utf8").trimEnd();
    expect(error.code).toBe("spec_invalid");
    expect(bare(formatSpecProblems(error.problems))).toBe(expected);
    for (const problem of error.problems) {
      expect(problem.file).toBe(path.join(dir, name));
      expect(problem.line).toBeGreaterThan(0);
      expect(problem.column).toBeGreaterThan(0);
    }
  });

  test("several problems in one file are all reported, in file order", async () => {
    const error = await problemsOf("57-several-problems.yml");
    expect(error.problems.map((p) => `${p.line}:${p.column} ${p.path}`)).toEqual([
      "5:5 tools[0]",
      "7:16 tools[1].bash.timeout",
      "9:14 limits.max_turns",
      "10:17 limits.max_cost_usd",
      "11:12 execution",
    ]);
    expect(bare(error.shortMessage)).toBe("57-several-problems.yml: 5 problems in the task spec");
  });

  test("a misspelt tool comes with the suggestion the issue asks for", async () => {
    const [problem] = (await problemsOf("12-unknown-tool-bare.yml")).problems;
    expect(bare(formatSpecProblems([problem!]))).toBe(
      "12-unknown-tool-bare.yml:5:5 tools[1]: unknown tool 'bsh' (expected one of bash, read, write, edit, grep, find, ls) — did you mean 'bash'?",
    );
  });

  test("the error message carries no stack trace and colors only on request", async () => {
    const error = await problemsOf("25-bad-execution.yml");
    expect(error.message).not.toMatch(/\n\s+at /);
    expect(formatSpecProblems(error.problems)).not.toContain("\u001b[");
    expect(formatSpecProblems(error.problems, { color: true })).toContain("\u001b[31m");
  });
});
