/**
 * The first model call goes out while the workspace snapshot is still being taken (so a big
 * workspace's snapshot hides behind the model's first answer); no tool and no command hook may
 * change a file before the snapshot has it. A replayed model answers at once, and a workspace of
 * a few thousand files takes git a while to snapshot: were the first tool not to wait, its edit
 * would be in the start tree and missing from the patch.
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { runCli, startCli, tempWorkspace } from "./helpers/cli.ts";
import { startMockLlm } from "./mock-llm/server.ts";

const dirs: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
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

/**
 * Everything that may change a file waits for the snapshot, so a run in which nothing waited for
 * it (the model only answered) changed nothing: its patch is empty without a look at the
 * workspace, and a snapshot still being taken is stopped rather than waited for, at whichever of
 * its steps it is. A `git` on PATH that hangs in one subcommand stands for a snapshot that would
 * take long there.
 */
test.for(["add", "commit-tree", "status", "ls-files"])(
  "a run that only answers does not wait for the snapshot's %s: it is stopped, the patch is empty",
  { timeout: 60_000 },
  async (hangsIn) => {
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const dir = await tempWorkspace({
      "task.yml": "model: anthropic:claude-haiku-4-5\nprompt: go\ntools: [write, bash]\nsandbox: off\n",
      "a.txt": "start\n",
    });
    // The answer comes once the snapshot has long reached the step that hangs.
    const llm = await startMockLlm({ script: [{ text: "nothing to change", firstByteDelayMs: 2500 }] });
    closers.push(llm.close);
    dirs.push(dir);
    const bin = path.join(dir, "bin");
    await mkdir(bin);
    await writeFile(
      path.join(bin, "git"),
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = ${hangsIn} ] && exec sleep 41.5; done\nexec ${realGit} "$@"\n`,
    );
    await chmod(path.join(bin, "git"), 0o755);
    const started = performance.now();
    const { child, done } = startCli([path.join(dir, "task.yml")], {
      env: {
        PATH: `${bin}${path.delimiter}${process.env.PATH}`,
        ANTHROPIC_API_KEY: "sk-ant-test-key",
        ANTHROPIC_BASE_URL: llm.url,
      },
    });
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    // Far less than the hanging add: the run did not wait for it.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(await readFile(path.join(dir, ".agent-run", "patch.diff"), "utf8")).toBe("");
    const usage = JSON.parse(await readFile(path.join(dir, ".agent-run", "usage.json"), "utf8"));
    expect(usage.conclusion).toBe("success");
    // The hanging git was killed, and the snapshot's temp folder goes (in the background).
    expect(execFileSync("sh", ["-c", "pgrep -f '[s]leep 41[.]5' || true"], { encoding: "utf8" })).toBe("");
    const prefix = `agent-run-pid${child.pid}-snapshot-`;
    const left = async () => (await readdir(os.tmpdir())).filter((name) => name.startsWith(prefix));
    for (let tries = 0; tries < 50 && (await left()).length > 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await left()).toEqual([]);
  },
);

/**
 * The tools that change no file (read, grep, find, ls) do not wait for the snapshot: a model that
 * starts by reading gets its answer while the snapshot's git still runs. A `git` that hangs in
 * `add` stands for a workspace that takes long to snapshot.
 */
test("a first turn that only reads does not wait for the snapshot", { timeout: 60_000 }, async () => {
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const dir = await tempWorkspace({
    "task.yml":
      "model: anthropic:claude-haiku-4-5\nprompt: go\ntools: [read, grep, find, ls, write]\nsandbox: off\n",
    "a.txt": "start\n",
  });
  dirs.push(dir);
  const llm = await startMockLlm({
    script: [
      {
        toolCalls: [
          { name: "read", arguments: { path: "a.txt" } },
          { name: "grep", arguments: { pattern: "start" } },
          { name: "find", arguments: { pattern: "*.txt" } },
          { name: "ls", arguments: {} },
        ],
      },
      { text: "read it" },
    ],
  });
  closers.push(llm.close);
  const bin = path.join(dir, "bin");
  await mkdir(bin);
  await writeFile(
    path.join(bin, "git"),
    `#!/bin/sh\nfor a in "$@"; do [ "$a" = add ] && exec sleep 42.5; done\nexec ${realGit} "$@"\n`,
  );
  await chmod(path.join(bin, "git"), 0o755);
  const started = performance.now();
  const result = await runCli([path.join(dir, "task.yml")], {
    env: {
      PATH: `${bin}${path.delimiter}${process.env.PATH}`,
      ANTHROPIC_API_KEY: "sk-ant-test-key",
      ANTHROPIC_BASE_URL: llm.url,
    },
  });
  expect(result.code, result.stderr).toBe(0);
  // Far less than the hanging add: no tool waited for it.
  expect(performance.now() - started).toBeLessThan(30_000);
  const events = await readFile(path.join(dir, ".agent-run", "events.jsonl"), "utf8");
  expect(events).toContain('"text":"1\\tstart"');
  expect(events).not.toContain('"isError":true');
  expect(await readFile(path.join(dir, ".agent-run", "patch.diff"), "utf8")).toBe("");
  expect(execFileSync("sh", ["-c", "pgrep -f '[s]leep 42[.]5' || true"], { encoding: "utf8" })).toBe("");
});
