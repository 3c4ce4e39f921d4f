import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "vitest";
import { ROOT, runCli, tempWorkspace } from "./helpers/cli.ts";

/**
 * Issue 16 through the built CLI: docs/replay.md's example runs as written; a replay file's calls
 * are checked against the tools' schemas before the run starts, every problem at once with its
 * position, and nothing is written; validate --replay says the same.
 */
const TASK =
  "name: replay\nmodel: anthropic:claude-sonnet-5-5\nprompt: Fix the lint errors.\nsandbox: off\ntools: [bash, edit]\n";

async function docsExample(): Promise<string> {
  const doc = await readFile(path.join(ROOT, "docs", "replay.md"), "utf8");
  const block = /```yaml\n(# a scripted session[\s\S]*?)```/.exec(doc)?.[1];
  expect(block).toBeDefined();
  return block!;
}

test("the docs' example replays: the edit applies, the run succeeds", { timeout: 30_000 }, async () => {
  const dir = await tempWorkspace({
    "task.yml": TASK,
    "session.yml": await docsExample(),
    "package.json": JSON.stringify({ scripts: { lint: "echo lint ok" } }),
  });
  const src = path.join(dir, "src");
  await mkdir(src);
  await writeFile(path.join(src, "a.ts"), "import { b } from './b';\n");
  const run = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "session.yml")], {
    cwd: dir,
  });
  expect(run.stderr).toContain("success · 3 turns");
  expect(run.code).toBe(0);
  expect(run.stderr).not.toMatch(/✗|⊘/);
  expect(await readFile(path.join(src, "a.ts"), "utf8")).toBe("import { a } from './b';\n");
});

const BAD = `turns:
  - tool_calls:
      - { name: edit, arguments: { path: a.txt, old: "x", new: "y" } }
      - { name: bsh, arguments: { command: ls } }
  - tool_calls:
      - name: bash
        arguments: { command: 42 }
      - { name: edit, arguments_raw: '{"path": ' }
  - text: done
`;

test("every bad call at once, positioned, before anything runs or is written", async () => {
  const dir = await tempWorkspace({ "task.yml": TASK, "session.yml": BAD, "a.txt": "x\n" });
  const file = path.join(dir, "session.yml");
  const run = await runCli([path.join(dir, "task.yml"), "--replay", file], { cwd: dir });
  expect(run.code).toBe(2);
  expect(run.stderr).toBe(
    [
      `agent-run: ${file}:3:34: turns.0.tool_calls.0.arguments.edits: edit: Invalid input: expected array, received undefined`,
      `${file}:3:34: turns.0.tool_calls.0.arguments: edit: unknown parameters "old", "new"`,
      `${file}:4:17: turns.0.tool_calls.1.name: the task offers no tool "bsh" (it offers bash, edit, give_up); did you mean "bash"?`,
      `${file}:7:31: turns.1.tool_calls.0.arguments.command: bash: Invalid input: expected string, received number`,
      "see docs/replay.md for the format",
      "",
    ].join("\n"),
  );
  expect(await readdir(dir)).not.toContain(".agent-run");

  const check = await runCli(["validate", path.join(dir, "task.yml"), "--replay", file], { cwd: dir });
  expect(check.code).toBe(2);
  expect(check.stderr).toContain(`${file}:4:17: turns.0.tool_calls.1.name: the task offers no tool "bsh"`);
});

test("a malformed file: every problem at once", async () => {
  const dir = await tempWorkspace({
    "task.yml": TASK,
    "session.yml": "turns:\n  - txt: hi\n    tool_cals: []\n  - stop: maybe\n",
  });
  const file = path.join(dir, "session.yml");
  const run = await runCli([path.join(dir, "task.yml"), "--replay", file], { cwd: dir });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`${file}:2:5: turns.0: Unrecognized key: "txt"`);
  expect(run.stderr).toContain(`${file}:3:5: turns.0: Unrecognized key: "tool_cals"`);
  expect(run.stderr).toContain(
    `${file}:4:11: turns.1.stop: Invalid option: expected one of "stop"|"length"|"tool_use"`,
  );
});

test("a recording (recorded: true) replays a model's mistakes as they happened", async () => {
  const dir = await tempWorkspace({
    "task.yml": TASK,
    "session.yml": `recorded: true\n${BAD}`,
    "a.txt": "x\n",
  });
  const run = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "session.yml")], {
    cwd: dir,
  });
  expect(run.code).toBe(0);
  expect(run.stderr).toContain("  ✗ bsh ");
  expect(run.stderr).toContain('      Tool "bsh" does not exist. Available tools: bash, edit, give_up.');
});
