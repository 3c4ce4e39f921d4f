import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { readJson, runCli } from "./helpers/cli.ts";
import { expectPatchGivesEndState } from "./helpers/patch-run.ts";
import { copyWithoutGit, sh, tempDir } from "./output-helpers.ts";

/**
 * Issue 13: the workspace disk filled, agent-run's own spill file of a bash output held the space,
 * and patch, usage and summary could not be written (exit 4 "internal error … ENOSPC", events.jsonl
 * cut, empty .tmp files left). A small tmpfs holds the workspace; mounting one needs root.
 */
const mounts: string[] = [];
afterEach(() => {
  for (const dir of mounts.splice(0)) spawnSync("umount", ["-l", dir]);
});

const CAN_MOUNT = (() => {
  if (process.getuid?.() !== 0) return false;
  const probe = tempDir("agent-run-mount-probe-");
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]).status === 0;
  if (mounted) spawnSync("umount", [probe]);
  return mounted;
})();

/** A git repository on a fresh tmpfs of `sizeMb`, holding a.txt and a .gitignore listing fill.bin. */
function repoOnTmpfs(sizeMb: number): string {
  const dir = tempDir("agent-run-full-disk-");
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", dir]);
  mounts.push(dir);
  writeFileSync(path.join(dir, "a.txt"), "a\n");
  writeFileSync(path.join(dir, ".gitignore"), "fill.bin\n");
  sh(dir, "git init -q -b main && git add -A && git commit -qm init");
  return dir;
}

async function runOn(root: string, commands: string[]) {
  const taskDir = tempDir("agent-run-task-");
  writeFileSync(
    path.join(taskDir, "task.yml"),
    "model: anthropic:claude-haiku-4-5\nprompt: do it\ntools: [bash]\nsandbox: off\n",
  );
  const turns = commands.map(
    (command) => `  - tool_calls: [{ name: bash, arguments: { command: '${command}' } }]\n`,
  );
  writeFileSync(path.join(taskDir, "s.yml"), `turns:\n${turns.join("")}  - text: done\n`);
  const start = copyWithoutGit(root);
  const result = await runCli([
    path.join(taskDir, "task.yml"),
    "--replay",
    path.join(taskDir, "s.yml"),
    "--cwd",
    root,
  ]);
  return { result, start, out: path.join(root, ".agent-run") };
}

/** Fills what room is left with a file git ignores (so it is no change of the run's). */
const FILL = "head -c 100000000 /dev/zero > fill.bin; true";

function eventsParse(out: string): Array<{ type: string }> {
  const text = readFileSync(path.join(out, "events.jsonl"), "utf8");
  expect(text === "" || text.endsWith("\n")).toBe(true);
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { type: string });
}

describe.skipIf(!CAN_MOUNT)("a full disk", () => {
  test("our own spill files give way: the outputs are written and the run's conclusion stands", async () => {
    const root = repoOnTmpfs(8);
    const { result, start, out } = await runOn(root, ["seq 1 3000000", `echo changed >> a.txt; ${FILL}`]);

    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(0);
    expect((await readJson(path.join(out, "usage.json"))).conclusion).toBe("success");
    expect(readFileSync(path.join(out, "summary.md"), "utf8")).toContain(
      "The disk was full: the full outputs of cut commands (tool-output/) were removed",
    );
    expect(
      readdirSync(out)
        .filter((name) => name !== ".gitignore")
        .sort(),
    ).toEqual(["events.jsonl", "patch.diff", "summary.md", "transcript.json", "usage.json"]);
    expectPatchGivesEndState({ root, start, out }, ["fill.bin"]);
    expect(eventsParse(out).at(-1)?.type).toBe("run_end");
  });

  test("no room even then: one clear line, exit 4, no temp file left, events.jsonl whole lines", async () => {
    const root = repoOnTmpfs(4);
    const { result, out } = await runOn(root, [`echo changed >> a.txt; ${FILL}`]);

    expect(result.code).toBe(4);
    const lines = result.stderr.split("\n").filter((line) => line.startsWith("agent-run: "));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^agent-run: could not write .*patch\.diff: ENOSPC: no space left on device/);
    expect(result.stderr).not.toMatch(/\n\s+at |internal error/);
    expect(readdirSync(out).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    eventsParse(out);
  });
});
