/**
 * `npm run demo` (scripts/demo.ts) runs examples/lint-fix offline with its recorded session: the
 * allow list refuses the session's `git push`, ESLint really runs in the hooks, and the demo ends
 * with exit code 0. `agent-run validate` shows the example without warnings.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
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
    expect(output).toMatch(
      /⊘ bash npm run lint && git push origin HEAD \([\d.]+ m?s\) blocked\n {6}.*bash policy: `git push origin HEAD` is not in the allow list/,
    );
    expect(output).toContain("success · 6 turns");
    expect(output).toContain("+const TAX_RATE = 0.2;");
    expect(output).toContain('"conclusion": "success"');
    expect(output).toContain("exit code: 0");
    // It cleans up after itself and says what to try next.
    const work = /demo: running examples\/lint-fix in (\S+)/.exec(output)?.[1];
    expect(work).toMatch(/agent-run-demo-/);
    expect(existsSync(work!)).toBe(false);
    expect(output).toContain("What to try next:");
    expect(output).toContain("node bin/agent-run.js validate examples/lint-fix/task.yml");
  });

  test("Ctrl-C during the demo: the run stops, the temp folder is removed, exit 130", async () => {
    // As a terminal does: SIGINT to the whole foreground process group (the demo and the CLI).
    const demo = spawn(process.execPath, [path.join(ROOT, "scripts", "demo.ts")], {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, PATH, NO_COLOR: "1", GITHUB_ACTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const seen = new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        // The CLI is running (its signal handlers are in place) once it has started a turn.
        if (/▸ turn 1/.test(output)) resolve();
      };
      demo.stdout.on("data", onData);
      demo.stderr.on("data", onData);
    });
    const exited = new Promise<number | null>((resolve) => demo.on("close", (code) => resolve(code)));
    await seen;
    process.kill(-demo.pid!, "SIGINT");
    expect(await exited).toBe(130);
    const work = /demo: running examples\/lint-fix in (\S+)/.exec(output)?.[1];
    expect(work).toMatch(/agent-run-demo-/);
    expect(existsSync(work!)).toBe(false);
  }, 60_000);

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
