import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { readJson, runCli } from "./helpers/cli.ts";
import { expectPatchGivesEndState } from "./helpers/patch-run.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { copyWithoutGit, gitRepo, tempDir } from "./output-helpers.ts";

/**
 * Processes a run's commands leave running must not write into the workspace while its patch is
 * computed, nor play symlink games with the runner's git (a "swapper" once broke `git add`: exit 4).
 * They are stopped before the final snapshot: the patch then gives the workspace as it stays.
 */
const LEFTOVERS = [
  // A directory swapped with a symlink to /etc and back, as fast as it goes, in a session of its own.
  "setsid sh -c 'while :; do mv d d.real; ln -s /etc d; rm d; mv d.real d; done' >/dev/null 2>&1 &",
  // A file that grows for as long as its writer lives.
  "(while :; do echo x >> grow.txt; sleep 0.01; done) >/dev/null 2>&1 &",
  "echo edited >> a.txt; sleep 0.5",
].join(" ");

async function runWithLeftovers(
  sandbox: "off" | "required",
  options: { firstTurn?: string; before?: string } = {},
) {
  const leftovers = (options.before ?? "") + LEFTOVERS;
  const files: Record<string, string> = { "a.txt": "a\n" };
  for (let i = 0; i < 50; i++) files[`d/f${i}.txt`] = `${i}\n`;
  const root = gitRepo(files);
  const start = copyWithoutGit(root);
  const taskDir = tempDir("agent-run-task-");
  writeFileSync(
    path.join(taskDir, "task.yml"),
    `model: anthropic:claude-haiku-4-5\nprompt: do it\ntools: [bash]\nsandbox: ${sandbox}\n`,
  );
  writeFileSync(
    path.join(taskDir, "s.yml"),
    `turns:\n${options.firstTurn ? `  - tool_calls: [{ name: bash, arguments: { command: ${JSON.stringify(options.firstTurn)} } }]\n` : ""}  - tool_calls: [{ name: bash, arguments: { command: ${JSON.stringify(leftovers)} } }]\n  - text: done\n`,
  );
  const result = await runCli([
    path.join(taskDir, "task.yml"),
    "--replay",
    path.join(taskDir, "s.yml"),
    "--cwd",
    root,
  ]);
  return { result, root, start, out: path.join(root, ".agent-run") };
}

async function expectStoppedBeforeThePatch(run: Awaited<ReturnType<typeof runWithLeftovers>>) {
  expect(run.result.stderr).not.toMatch(/internal error|could not be computed/);
  expect(run.result.code).toBe(0);
  expect((await readJson(path.join(run.out, "usage.json"))).conclusion).toBe("success");
  // Nothing writes any more: the file is as the patch left it.
  const size = statSync(path.join(run.root, "grow.txt")).size;
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(statSync(path.join(run.root, "grow.txt")).size).toBe(size);
  expectPatchGivesEndState(run);
  // Whatever moment the swapper was stopped at, nothing of /etc came in through its symlink.
  expect(readFileSync(path.join(run.out, "patch.diff"), "utf8")).not.toContain("root:x:0:0");
}

// Stopped by the run's pids cgroup where there is one (root, a delegated subtree), else by the
// runner's marker variable, which they inherited.
test("unsandboxed: background and setsid leftovers are stopped before the patch is computed", async () => {
  await expectStoppedBeforeThePatch(await runWithLeftovers("off"));
});

test("unsandboxed, started by the command server: the same leftovers are stopped before the patch", async () => {
  // The first turn gives the server (sandbox/command-server.ts) time to start; the second records
  // who started it, outside the workspace.
  const parentFile = path.join(tempDir("agent-run-parent-"), "parent.txt");
  const run = await runWithLeftovers("off", {
    firstTurn: "sleep 0.5",
    before: `tr '\\0' ' ' < /proc/$PPID/cmdline > ${parentFile}; `,
  });
  await expectStoppedBeforeThePatch(run);
  expect(readFileSync(parentFile, "utf8")).toMatch(/ -e "use strict"/);
});

test.skipIf(NO_SANDBOX)("sandboxed: the same leftovers end with the sandbox, before the patch", async () => {
  await expectStoppedBeforeThePatch(await runWithLeftovers("required"));
});
