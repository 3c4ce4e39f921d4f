/**
 * The first model call goes out while the workspace snapshot is still being taken (so a big
 * workspace's snapshot hides behind the model's first answer); no tool and no command hook may
 * change a file before the snapshot has it. A replayed model answers at once, and a workspace of
 * a few thousand files takes git a while to snapshot: were the first tool not to wait, its edit
 * would be in the start tree and missing from the patch.
 */
import { execFileSync } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

test.for([
  ["a git repository", true],
  ["a plain folder", false],
] as const)(
  "in %s, the first turn's write, bash and hook are all in the patch",
  { timeout: 120_000 },
  async ([, repo]) => {
    const dir = await tempWorkspace({
      "task.yml":
        "model: anthropic:claude-haiku-4-5\nprompt: go\ntools: [write, bash]\nsandbox: off\n" +
        "hooks:\n  before_tool_call:\n    - match: { tool: write }\n      run: echo hooked >> hook.txt\n",
      "s.yml":
        'turns:\n  - tool_calls:\n      - { name: write, arguments: { path: a.txt, content: "changed\\n" } }\n' +
        "      - { name: bash, arguments: { command: 'echo more >> b.txt' } }\n  - text: done\n",
      "a.txt": "start\n",
      "b.txt": "start\n",
      "hook.txt": "start\n",
    });
    dirs.push(dir);
    for (let d = 0; d < 40; d++) {
      await mkdir(path.join(dir, `d${d}`));
      for (let f = 0; f < 100; f++) await writeFile(path.join(dir, `d${d}`, `f${f}.txt`), `${d}/${f}\n`);
    }
    if (repo) {
      const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
      git("init", "-q");
      git("add", "-A");
      git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "start");
    }
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    expect(result.code, result.stderr).toBe(0);
    const patch = await readFile(path.join(dir, ".agent-run", "patch.diff"), "utf8");
    expect(patch).toContain("-start\n+changed");
    expect(patch).toContain("+more");
    expect(patch).toContain("+hooked");
    expect(patch).not.toContain("d0/f0.txt");
  },
);
