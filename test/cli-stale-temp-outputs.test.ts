/**
 * A run that was killed while it wrote an output leaves its temp file (`<output>.<pid>.tmp`,
 * src/output/atomic-write.ts) in the outputs folder. The next run's finish phase removes those of
 * processes that are gone, and only those, whatever else it does meanwhile (it starts while the
 * run lets go of its resources). Through the built CLI.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";
import { gitRepo } from "./output-helpers.ts";

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

test("an earlier run's temp outputs are removed when its process is gone, and only then", async () => {
  mock = await startMockLlm({
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "Done." }],
  });
  const repo = gitRepo({ "task.yml": "model: anthropic:claude-haiku-5-5\nprompt: Say hi.\ntools: [bash]\n" });
  const outputs = path.join(repo, ".agent-run");
  mkdirSync(outputs, { recursive: true });
  // A PID that surely is no process now: one past the kernel's limit.
  const deadPid = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")) + 1;
  const stale = [`summary.md.${deadPid}.tmp`, `patch.diff.${deadPid}.tmp`];
  // This test's own process is alive: its temp file is not the run's to remove.
  const live = `usage.json.${process.pid}.tmp`;
  const lookalikes = [`notes.${deadPid}.tmp.bak`, "summary.md.tmp", `summary.md.${deadPid}x.tmp`];
  for (const name of [...stale, live, ...lookalikes])
    writeFileSync(path.join(outputs, name), "half written\n");
  const run = await runCli([path.join(repo, "task.yml")], { cwd: repo, env: mockEnv(mock.url) });
  expect(run.code, run.stderr).toBe(0);
  for (const name of stale) expect(existsSync(path.join(outputs, name)), name).toBe(false);
  for (const name of [live, ...lookalikes]) expect(existsSync(path.join(outputs, name)), name).toBe(true);
  expect(existsSync(path.join(outputs, "summary.md"))).toBe(true);
});
