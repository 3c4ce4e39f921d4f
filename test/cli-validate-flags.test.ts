import { writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";

/**
 * Issue 16 through the built CLI: `validate` checks the task a run with the same flags would run
 * (`--model`, `--prompt`, `--var`, `--cwd`, `--out`, `--replay`, the limits) instead of ignoring
 * them, refuses the flags that only act on a run, and durations get a did-you-mean.
 */
const TASK =
  "name: t\nmodel: anthropic:claude-sonnet-5-5\nprompt: From the file {{ vars.x }}\nvars: { x: a }\ntools: [read]\n";

async function validate(args: string[], files: Record<string, string> = {}) {
  const dir = await tempWorkspace({ "task.yml": TASK, ...files });
  const result = await runCli(["validate", path.join(dir, "task.yml"), ...args], { cwd: dir });
  const row = (label: string) =>
    result.stdout.split("\n").find((line) => line.startsWith(`${label.padEnd(10)} `));
  return { ...result, dir, row };
}

test("--model, --prompt, --var, --cwd, --out and the limits are applied, as a run applies them", async () => {
  const other = await tempWorkspace();
  const run = await validate([
    "--model",
    "openai:gpt-6-luna",
    "--prompt",
    "From the flag {{ vars.x }}",
    "--var",
    "x=b",
    "--cwd",
    other,
    "--out",
    path.join(other, "out"),
    "--max-turns",
    "7",
    "--max-cost",
    "0.5",
    "--timeout",
    "90s",
  ]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  expect(run.row("model")).toMatch(/^model {6}openai:gpt-6-luna /);
  expect(run.row("prompt")).toBe("prompt     From the flag b  (15 chars)");
  expect(run.row("workspace")).toBe(`workspace  ${other}`);
  expect(run.row("outputs")).toBe(`outputs    ${path.join(other, "out")}`);
  expect(run.row("limits")).toBe(
    "limits     max_turns 7 · max_cost_usd $0.5 · max_tokens none · timeout 90s",
  );
});

test("a bad --model is the flag's problem; a --cwd that is no folder too", async () => {
  const model = await validate(["--model", "anthropic:claude-sonet-5-5"]);
  expect(model.code).toBe(0);
  expect(model.stdout).toContain("--model: unknown model id 'claude-sonet-5-5'");
  const provider = await validate(["--model", "ollama:llama3"]);
  expect(provider.code).toBe(2);
  expect(provider.stderr).toContain("--model: unknown provider 'ollama'");
  const cwd = await validate(["--cwd", "/nonexistent/nowhere"]);
  expect(cwd.code).toBe(2);
  expect(cwd.stderr).toBe(
    "--cwd: workspace /nonexistent/nowhere is not a directory (expected an existing directory)\n",
  );
});

test("--replay is read and checked; its problems are positioned", async () => {
  const good = await validate(["--replay", "session.yml"], {
    "session.yml": "turns:\n  - text: hi\n  - text: done\n",
  });
  expect(good.stderr).toBe("");
  expect(good.code).toBe(0);
  expect(good.row("replay")).toBe("replay     session.yml  (2 turns; no model is called)");
  const bad = await validate(["--replay", "session.yml"], { "session.yml": "turns:\n  - txt: hi\n" });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("session.yml:2:5");
  expect(bad.stderr).toContain('Unrecognized key: "txt"');
});

test("--record and --json act on a run only: refused, not ignored", async () => {
  for (const args of [["--record", "x.yml"], ["--json"]]) {
    const run = await validate(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`'validate' runs nothing, so ${args[0]} does not apply to it`);
  }
});

test.for([
  ["5min", "5m"],
  ["120 sec", "120s"],
  ["1 hour 30 mins", "1h30m"],
  ["1h 30m", "1h30m"],
] as const)("--timeout %s: did you mean %s? (run, validate and the spec)", async ([bad, good]) => {
  const dir = await tempWorkspace({ "task.yml": TASK });
  const task = path.join(dir, "task.yml");
  const hint = `did you mean '${good}'?`;
  const run = await runCli([task, "--timeout", bad], { cwd: dir });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`--timeout expects a duration like 90s or 20m, got '${bad}' — ${hint}`);
  const check = await runCli(["validate", task, "--timeout", bad], { cwd: dir });
  expect(check.stderr).toContain(hint);
  await writeFile(task, `${TASK}limits: { timeout: ${bad} }\n`);
  const spec = await runCli(["validate", task], { cwd: dir });
  expect(spec.code).toBe(2);
  expect(spec.stderr).toContain(`task.yml:6:20 limits.timeout: bad duration '${bad}'`);
  expect(spec.stderr).toContain(hint);
});
