/**
 * The reaper (src/system/reaper.ts) does its removals beside the run's last steps and its own end
 * beside whatever starts next: it runs at the lowest priority, so that it takes only idle CPU.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { startCli, tempWorkspace } from "./helpers/cli.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The nice value of `pid` (field 19 of /proc/PID/stat, after the command name). */
function niceOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

test("the reaper of a running CLI runs at nice 19", { timeout: 60_000 }, async () => {
  const dir = await tempWorkspace({
    "task.yml": "model: anthropic:claude-haiku-4-5\nprompt: go\ntools: [bash]\nsandbox: off\n",
    "s.yml": "turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'sleep 3' } }]\n  - text: done\n",
  });
  dirs.push(dir);
  const { child, done } = startCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
  let reaper: number | undefined;
  for (let tries = 0; tries < 100 && reaper === undefined; tries++) {
    const found = execFileSync("sh", ["-c", `pgrep -P ${child.pid} -f agent-run-reaper || true`], {
      encoding: "utf8",
    }).trim();
    if (found !== "") reaper = Number(found.split("\n")[0]);
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(reaper, "the reaper was not found").toBeDefined();
  expect(niceOf(reaper as number)).toBe(19);
  expect((await done).code).toBe(0);
});
