/**
 * Hook templates cannot become options: with `after_tool_call: npx eslint --fix {{ tool.path }}`
 * and no bash at all, a model that writes `evil.mjs` and then a file named `--config=evil.mjs` made
 * eslint load evil.mjs as its configuration (code). Through the built CLI, with the real eslint of
 * the devDependencies.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, symlink, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { ROOT, runCli, tempWorkspace } from "./helpers/cli.ts";

const EVIL =
  'import { writeFileSync } from "node:fs";\nwriteFileSync("pwned", "loaded");\nexport default [];\n';

describe("hook template values", () => {
  test("a written file named `--config=evil.mjs` reaches `npx eslint --fix {{ tool.path }}` as ./--config=evil.mjs", async () => {
    const dir = await tempWorkspace({
      "task.yml": [
        "name: t",
        "model: anthropic:claude-sonnet-5-5",
        "prompt: write the files",
        "sandbox: off",
        "tools: [write]",
        "hooks:",
        "  after_tool_call:",
        "    - match: { tool: [write] }",
        "      run: npx eslint --fix {{ tool.path }}",
        "",
      ].join("\n"),
      "eslint.config.js":
        'export default [{ files: ["**/*.js", "**/*.mjs"], rules: { "no-var": "error" } }];\n',
      "package.json": JSON.stringify({ name: "t", type: "module" }),
      "s.yml": [
        "turns:",
        "  - tool_calls:",
        `      - { name: write, arguments: { path: evil.mjs, content: ${JSON.stringify(EVIL)} } }`,
        "  - tool_calls:",
        `      - { name: write, arguments: { path: "--config=evil.mjs", content: "" } }`,
        `      - { name: write, arguments: { path: "-x.js", content: "var x = 1;\\nexport { x };\\n" } }`,
        "  - text: done",
        "",
      ].join("\n"),
    });
    await symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    expect(result.stderr).toContain("success");
    expect(result.code).toBe(0);
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    const events = (await readFile(path.join(dir, ".agent-run", "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; command?: string; exitCode?: number });
    const hooks = events.filter((event) => event.type === "hook_end");
    expect(hooks.map((event) => event.command).sort()).toEqual([
      "npx eslint --fix ./--config=evil.mjs",
      "npx eslint --fix ./-x.js",
      "npx eslint --fix evil.mjs",
    ]);
    // eslint really ran on the files the model named: `var` fixed in -x.js.
    expect(hooks.map((event) => event.exitCode)).toEqual([0, 0, 0]);
    expect(await readFile(path.join(dir, "-x.js"), "utf8")).toBe("let x = 1;\nexport { x };\n");

    // The attack is real: the same command without `./` loads the model's file as the configuration.
    await unlink(path.join(dir, "-x.js"));
    await writeFile(path.join(dir, "a.js"), "export const a = 1;\n");
    spawnSync("npx", ["eslint", "--fix", "--config=evil.mjs", "a.js"], { cwd: dir, stdio: "ignore" });
    expect(existsSync(path.join(dir, "pwned"))).toBe(true);
  });
});
