/**
 * A turn that ran a command starts a checkpoint at once (the first of a run): `git add` in a bwrap
 * of the sandbox's view, which binds the empty mount points the set-up made for protected folders
 * that did not exist (`.github/workflows`). A model answering at once (a replay here) ends the run
 * while that bwrap starts; the finish phase then removed those mount points with the sandbox, the
 * bwrap failed ("Can't find source path"), and a run that went well warned that its checkpoint
 * failed, and read the workspace once more for the patch. Through the built CLI, real bubblewrap.
 */
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { runScriptedCli } from "./helpers/scripted-cli.ts";
import { trustWorkspace } from "./helpers/trust.ts";

const TASK = "model: anthropic:claude-sonnet-4-5\nprompt: change it\ntools: [bash]\nsandbox: required\n";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(NO_SANDBOX)("the finish phase and a checkpoint in flight (CLI, real bubblewrap)", () => {
  // Several runs: whether the bwrap is still starting when the finish begins is a matter of ms.
  test.for([1, 2, 3, 4, 5])(
    "run %i: a command, then an answer at once: no warning, the change in the patch",
    { timeout: 60_000 },
    async () => {
      const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
      dirs.push(dir);
      const run = await runScriptedCli(dir, TASK, [
        { tool_calls: [{ name: "bash", arguments: { command: "echo changed > a.txt" } }] },
        { text: "done" },
      ]);
      expect(run.code, run.stderr).toBe(0);
      const warnings = run.events.filter((event) => event.type === "warning").map((event) => event.message);
      expect(warnings).toEqual([]);
      expect(run.stderr).not.toMatch(/checkpoint/);
      const patch = await readFile(path.join(run.outDir, "patch.diff"), "utf8");
      expect(patch).toContain("+changed");
    },
  );
});
