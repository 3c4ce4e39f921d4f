import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { readJson, runCli } from "./helpers/cli.ts";
import { gitRepo, tempDir } from "./output-helpers.ts";

/**
 * A git that fails when asked for a binary patch (the end diff): a disk error, a corrupt object, a
 * git that is killed. Everything else it passes to the real git.
 */
function gitFailingOnPatches(): string {
  const bin = tempDir("agent-run-fake-git-");
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const wrapper = path.join(bin, "git");
  writeFileSync(
    wrapper,
    `#!/bin/sh\nfor arg in "$@"; do\n  [ "$arg" = "--binary" ] && { echo "fatal: unable to read 1234abcd (injected)" >&2; exit 128; }\ndone\nexec ${real} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  return bin;
}

test("a patch that cannot be computed ends the run as an error (exit 4) with the reason, never a success", async () => {
  const root = gitRepo({ "a.txt": "a\n" });
  const dir = tempDir("agent-run-task-");
  writeFileSync(
    path.join(dir, "task.yml"),
    "model: anthropic:claude-haiku-4-5\nprompt: edit\ntools: [write]\n",
  );
  writeFileSync(
    path.join(dir, "s.yml"),
    "turns:\n  - tool_calls: [{ name: write, arguments: { path: a.txt, content: 'b\\n' } }]\n  - text: done\n",
  );
  const result = await runCli(
    [path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml"), "--cwd", root],
    { env: { PATH: `${gitFailingOnPatches()}${path.delimiter}${process.env.PATH}` } },
  );

  expect(result.code).toBe(4);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  const out = path.join(root, ".agent-run");
  const usage = await readJson(path.join(out, "usage.json"));
  expect(usage.conclusion).toBe("error");
  const summary = readFileSync(path.join(out, "summary.md"), "utf8");
  expect(summary).toContain("the patch could not be computed");
  expect(summary).toContain("unable to read 1234abcd (injected)");
  expect(summary).toContain("the run itself ended as success");
  const events = readFileSync(path.join(out, "events.jsonl"), "utf8").trim().split("\n");
  expect(JSON.parse(events.at(-1) ?? "{}")).toMatchObject({
    type: "run_end",
    exitCode: 4,
    conclusion: "error",
  });
});
