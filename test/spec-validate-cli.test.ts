import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { BUILT_CLI } from "./helpers/built.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const bin = BUILT_CLI;

/** Runs the CLI as a real child process from the repository root. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, NO_COLOR: "1" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("agent-run validate and schema, as a child process", () => {
  test.for(["57-several-problems", "59-problems-in-two-phases", "01-yaml-unclosed-flow"])(
    "validate %s prints one positioned line per problem and exits 2",
    async (name) => {
      const file = `test/fixtures/bad-specs/${name}.yml`;
      const expected = await readFile(path.join(root, `test/fixtures/bad-specs/${name}.expected`), "utf8");
      const result = await cli("validate", file);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(expected.replaceAll(`${name}.yml:`, `${file}:`));
    },
  );

  test("schema prints the committed JSON Schema", async () => {
    const result = await cli("schema");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(await readFile(path.join(root, "schema/task.schema.json"), "utf8"));
  });
});
