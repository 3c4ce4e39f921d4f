/**
 * Hook templates cannot become code: a `{{ … }}` written inside quotes (`"{{ tool.path }}"`, a
 * habit) gets the runner's single quotes as literal characters, so a file the model names
 * `$(touch pwned).txt` ran `touch pwned` in the hook's shell, outside any bash policy. Such a
 * template is refused when the task loads, with its position; written bare, the same name reaches
 * the hook as one plain word. Through the built CLI, with real hooks run by bash.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";

const EVIL_NAME = "$(touch pwned).txt";

function task(run: string): string {
  return [
    "name: t",
    "model: anthropic:claude-sonnet-4-5",
    "prompt: write the file",
    "sandbox: off",
    "tools: [write]",
    "hooks:",
    "  after_tool_call:",
    "    - match: { tool: [write] }",
    `      run: ${JSON.stringify(run)}`,
    "",
  ].join("\n");
}

const SCRIPT = [
  "turns:",
  "  - tool_calls:",
  `      - { name: write, arguments: { path: ${JSON.stringify(EVIL_NAME)}, content: "x" } }`,
  "  - text: done",
  "",
].join("\n");

describe("hook template values inside quotes", () => {
  test.for([
    'echo "{{ tool.path }}" >> seen.txt',
    "echo '{{ tool.path }}' >> seen.txt",
    'echo "name: `basename {{ tool.path }}`" >> seen.txt',
    "cat <<EOF >> seen.txt\n{{ tool.path }}\nEOF",
  ])("`%s` is refused when the task loads, with its position", async (run) => {
    const dir = await tempWorkspace({ "task.yml": task(run), "s.yml": SCRIPT });
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /task\.yml:9:\d+ hooks\.after_tool_call\[0\]\.run: \{\{ tool\.path \}\} stands inside quotes/,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  test("written bare, the same file name reaches the hook as one plain word", async () => {
    const dir = await tempWorkspace({
      "task.yml": task("echo {{ tool.path }} >> seen.txt"),
      "s.yml": SCRIPT,
    });
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    expect(result.stderr).toContain("success");
    expect(result.code).toBe(0);
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(await readFile(path.join(dir, "seen.txt"), "utf8")).toBe(`${EVIL_NAME}\n`);
  });
});
