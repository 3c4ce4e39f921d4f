/**
 * `npm run demo` (scripts/demo.ts) runs examples/lint-fix offline with its recorded session: the
 * allow list refuses the session's `git push`, ESLint really runs in the hooks, and the demo ends
 * with exit code 0. `agent-run validate` shows the example without warnings.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { ROOT, runCli } from "./helpers/cli.ts";

const PATH = `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`;

describe("the lint-fix example", () => {
  test("npm run demo runs offline to success, refusing the session's git push", () => {
    const demo = spawnSync("npm", ["run", "demo"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, PATH, NO_COLOR: "1", GITHUB_ACTIONS: "" },
      timeout: 120_000,
    });
    const output = `${demo.stdout}${demo.stderr}`;
    expect(demo.status, output).toBe(0);
    expect(output).toContain("blocked: bash policy: `git push origin HEAD` is not in the allow list");
    expect(output).toContain("success · 6 turns");
    expect(output).toContain("+const TAX_RATE = 0.2;");
    expect(output).toContain('"conclusion": "success"');
    expect(output).toContain("exit code: 0");
  });

  test("validate shows it without warnings", async () => {
    const result = await runCli(["validate", path.join(ROOT, "examples", "lint-fix", "task.yml")], {
      env: { PATH },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "allow only: npm run lint*, eslint *, npx eslint *, git diff*, git status*",
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain("warning");
  });
});
