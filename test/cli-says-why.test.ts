import { expect, test } from "vitest";
import { tempWorkspace } from "./helpers/cli.ts";
import { runScriptedCli } from "./helpers/scripted-cli.ts";

/**
 * Issue 16 through the built CLI: why a call failed or was blocked is on the terminal (the first
 * line the model got), every command hook run is there and in summary.md (after_tool_call runs,
 * a before_stop check failing then passing), and the summary shows quoted commands as code.
 */
const TASK = `name: why
model: anthropic:claude-sonnet-5-5
prompt: Fix \`a.txt\`.
sandbox: off
tools: [read, edit, bash]
hooks:
  before_tool_call:
    - match: { tool: bash, command: "git push*" }
      block: pushing is the workflow's job
  after_tool_call:
    - match: { tool: edit }
      run: echo checked {{ tool.path }}
  before_stop:
    - run: test -f done.txt
      max_attempts: 3
`;

test("failed and blocked calls say why; hook runs in the terminal and the summary", {
  timeout: 30_000,
}, async () => {
  const dir = await tempWorkspace({ "a.txt": "one\ntwo\n" });
  const run = await runScriptedCli(dir, TASK, [
    {
      tool_calls: [
        { name: "edit", arguments: { path: "a.txt", edits: [{ oldText: "three", newText: "3" }] } },
        { name: "edit", arguments: { path: "a.txt", edits: [{ oldText: "two", newText: "2" }] } },
        { name: "bash", arguments: { command: "git push origin main" } },
      ],
    },
    { text: "Done." },
    { tool_calls: [{ name: "bash", arguments: { command: "touch done.txt" } }] },
    { text: "Done now." },
  ]);
  expect(run.code).toBe(0);
  const lines = run.stderr.split("\n");
  const after = (start: string) => lines[lines.findIndex((line) => line.startsWith(start)) + 1];
  expect(after("  ✗ edit a.txt")).toBe(
    '      Tool "edit" failed: The edit: oldText was not found in a.txt, not even ignoring whitespace and quote style. Read the file again and copy the exact text. Nothing was changed.',
  );
  expect(after("  ⊘ bash git push origin main")).toBe(
    "      Tool call blocked: pushing is the workflow's job",
  );
  expect(lines.filter((line) => line.startsWith("  ✓ after_tool_call echo checked a.txt"))).toHaveLength(1);
  expect(
    lines
      .filter((line) => / before_stop test -f done\.txt \([\d.]+ m?s\) /.test(line))
      .map((l) => l.slice(0, 3) + l.replace(/.*\) /, " ")),
  ).toEqual(["  ✗ fail", "  ✓ pass"]);
  expect(after("  ✗ before_stop test -f done.txt")).toBe("      failed (exit code 1); attempt 1 of 3");

  expect(run.summary).toContain("> Fix `a.txt`.");
  expect(run.summary).toMatch(
    /\| after\\_tool\\_call \| echo checked a\.txt \| 1 \| output 1 \| output \| [\d.]+ m?s \|\n\| before\\_stop \| test -f done\.txt \| 2 \| fail 1, pass 1 \| pass \| [\d.]+ m?s \|/,
  );
});
