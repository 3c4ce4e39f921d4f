/**
 * The runner's own commands (git, sh) are looked up once, in PATH's absolute folders only
 * (src/system/which.ts): a relative PATH folder cannot make the runner run a workspace's file as
 * its git, outside the sandbox.
 */
import fs from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "vitest";
import { findExecutable } from "../src/system/which.ts";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { tempDir } from "./output-helpers.ts";

async function executable(file: string, mode = 0o755): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, "#!/bin/sh\nexit 0\n");
  await chmod(file, mode);
}

test("the first executable file of PATH's absolute folders; relative folders are passed over", async () => {
  const root = tempDir("agent-run-which-");
  await executable(path.join(root, "plain", "tool"), 0o644);
  await mkdir(path.join(root, "folder", "tool"), { recursive: true });
  await executable(path.join(root, "first", "tool"));
  await executable(path.join(root, "second", "tool"));
  const cwd = process.cwd();
  try {
    process.chdir(root);
    await executable(path.join(root, "tool"));
    const search = [
      ".",
      "",
      "first-relative",
      `${root}/plain`,
      `${root}/folder`,
      `${root}/first/`,
      `${root}/second`,
    ];
    expect(findExecutable("tool", search.join(":"), fs)).toBe(`${root}/first/tool`);
    expect(findExecutable("tool", [".", `${root}/plain`].join(":"), fs)).toBe("tool");
  } finally {
    process.chdir(cwd);
  }
  expect(findExecutable("tool", undefined, fs)).toBe("tool");
  expect(findExecutable("./tool", `${root}/first`, fs)).toBe("./tool");
  expect(findExecutable("sh", "/nonexistent:/usr/bin:/bin", fs)).toMatch(/^\/(usr\/)?bin\/sh$/);
});

/**
 * Replays `files`' s.yml on its task.yml in a workspace holding a `git` that leaves `marker` when it
 * runs, with the working folder first on PATH.
 */
async function runWithWorkspaceGit(files: Record<string, string>) {
  const marker = path.join(tempDir("agent-run-which-marker-"), "ran");
  const dir = await tempWorkspace(files);
  await writeFile(path.join(dir, "git"), `#!/bin/sh\ntouch '${marker}'\nexit 1\n`);
  await chmod(path.join(dir, "git"), 0o755);
  const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")], {
    cwd: dir,
    env: { PATH: `.:${process.env.PATH ?? ""}` },
  });
  return { result, marker, dir };
}

test("a git in the workspace is not the runner's git, though PATH names the working folder first", async () => {
  const { result, marker } = await runWithWorkspaceGit({
    "task.yml": "model: anthropic:claude-haiku-4-5\nprompt: say hi\ntools: []\nsandbox: off\n",
    "s.yml": "turns:\n  - text: hi\n",
  });
  expect(result.stderr).not.toContain("internal error");
  expect(result.code).toBe(0);
  expect(fs.existsSync(marker)).toBe(false);
});

/**
 * Sandboxed, the snapshot's git is given to a wrapper that puts it in a bwrap while the model's
 * processes may live, and hands it back as is before the first command and after the sandbox is
 * gone: as is, it must still be the git of PATH's absolute folders (at the turn checkpoints before
 * the first command, and at the end's update).
 */
test.skipIf(NO_SANDBOX)(
  "sandboxed: the snapshot's git, before the first command and after the sandbox, is not a workspace's",
  { timeout: 60_000 },
  async () => {
    const { result, marker, dir } = await runWithWorkspaceGit({
      "task.yml": "model: anthropic:claude-haiku-4-5\nprompt: go\ntools: [write, bash]\nsandbox: auto\n",
      "s.yml":
        "turns:\n  - tool_calls:\n      - { name: write, arguments: { path: a.txt, content: one } }\n" +
        "  - tool_calls:\n      - { name: bash, arguments: { command: 'echo two > b.txt' } }\n" +
        "  - text: done\n",
    });
    expect(result.stderr).not.toContain("internal error");
    expect(result.code, result.stderr).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
    const patch = fs.readFileSync(path.join(dir, ".agent-run", "patch.diff"), "utf8");
    expect(patch).toContain("+one");
    expect(patch).toContain("+two");
  },
);
