import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { expectPatchGivesEndState } from "./helpers/patch-run.ts";
import { copyWithoutGit, gitRepo, sh, tempDir } from "./output-helpers.ts";

/** A repository with `lib` as a submodule (a clone of another local repository). */
function repoWithSubmodule(): string {
  const sub = gitRepo({ "s.txt": "s\n" });
  const root = gitRepo({ "a.txt": "a\n" });
  sh(root, `git -c protocol.file.allow=always submodule add -q ${sub} lib && git commit -qm sub`);
  return root;
}

async function run(root: string, command: string) {
  const taskDir = tempDir("agent-run-task-");
  writeFileSync(
    path.join(taskDir, "task.yml"),
    "model: anthropic:claude-haiku-4-5\nprompt: do it\ntools: [bash]\nsandbox: off\n",
  );
  writeFileSync(
    path.join(taskDir, "s.yml"),
    `turns:\n  - tool_calls: [{ name: bash, arguments: { command: '${command}' } }]\n  - text: done\n`,
  );
  const start = copyWithoutGit(root);
  const result = await runCli(
    [path.join(taskDir, "task.yml"), "--replay", path.join(taskDir, "s.yml"), "--cwd", root],
    {
      env: {
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    },
  );
  const out = path.join(root, ".agent-run");
  return { result, start, out, summary: readFileSync(path.join(out, "summary.md"), "utf8") };
}

test("changed files inside a submodule: the summary says patch.diff cannot hold them", async () => {
  const root = repoWithSubmodule();
  const { result, start, out, summary } = await run(root, "echo top >> a.txt; echo inside >> lib/s.txt");
  expect(result.code).toBe(0);
  expect(summary).toContain(
    "the submodule lib has changes that patch.diff cannot hold (its files changed): a patch carries a submodule only as a commit id",
  );
  expect(readFileSync(path.join(out, "patch.diff"), "utf8")).not.toContain("inside");
  expectPatchGivesEndState({ root, start, out }, ["lib"]);
});

test("a commit made inside a submodule: the summary names the move of its HEAD", async () => {
  const root = repoWithSubmodule();
  const before = sh(path.join(root, "lib"), "git rev-parse HEAD").trim();
  const { summary } = await run(root, "cd lib && echo more >> s.txt && git commit -qam more");
  const after = sh(path.join(root, "lib"), "git rev-parse HEAD").trim();
  expect(summary).toContain(`its HEAD moved (${before.slice(0, 12)} to ${after.slice(0, 12)})`);
});

test("a submodule the run does not touch is not mentioned", async () => {
  const root = repoWithSubmodule();
  const { summary } = await run(root, "echo top >> a.txt");
  expect(summary).not.toContain("submodule");
});
