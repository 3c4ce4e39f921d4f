import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { isAlive, runCli, startCli, tempWorkspace, waitGone } from "./helpers/cli.ts";
import { until } from "./helpers/patch-run.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { tempDir } from "./output-helpers.ts";

/**
 * Issue 13: SIGKILL of the runner left unsandboxed bash running and the snapshot temp dir behind,
 * and later runs never cleaned it. The runner's own temp dir (TMPDIR) is private to each test, so
 * what it leaves there can be seen.
 */
const TASK = (sandbox: string) =>
  `model: anthropic:claude-haiku-4-5\nprompt: run it\ntools: [bash]\nsandbox: ${sandbox}\n`;

/** Processes whose command line is exactly `args` (found through /proc, host PIDs). */
function processesRunning(args: string[]): number[] {
  const wanted = `${args.join("\0")}\0`;
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8") === wanted && isAlive(Number(entry)))
        found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

async function goneWithin(ms: number, check: () => boolean): Promise<boolean> {
  await until(() => check(), ms).catch(() => {});
  return check();
}

test("SIGKILL of the runner: no child of its commands is left, its temp dir is removed", async () => {
  const tmp = tempDir("agent-run-tmpdir-");
  const marker = String(Date.now() % 100000);
  const dir = await tempWorkspace({
    "task.yml": TASK("off"),
    "s.yml": `turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'sleep 301${marker} & echo $! > bg.pid; setsid sleep 302${marker} & echo $! > escaped.pid; sleep 303${marker}' } }]\n`,
  });
  const { child, done } = startCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")], {
    env: { TMPDIR: tmp },
  });
  await until(
    () => existsSync(path.join(dir, "escaped.pid")) && processesRunning(["sleep", `303${marker}`]).length > 0,
  );
  const ours = readdirSync(tmp).filter((name) => name.startsWith(`agent-run-pid${child.pid}-snapshot-`));
  expect(ours).toHaveLength(1);
  const pids = [
    Number(readFileSync(path.join(dir, "bg.pid"), "utf8")),
    Number(readFileSync(path.join(dir, "escaped.pid"), "utf8")),
    ...processesRunning(["sleep", `303${marker}`]),
  ];
  for (const pid of pids) expect(isAlive(pid)).toBe(true);

  child.kill("SIGKILL");
  await done;
  for (const pid of pids) expect(await waitGone(pid, 5000)).toBe(true);
  expect(await goneWithin(5000, () => !existsSync(path.join(tmp, ours[0] ?? "")))).toBe(true);
});

test.skipIf(NO_SANDBOX)("SIGKILL of the runner: no sandboxed command is left either", async () => {
  const tmp = tempDir("agent-run-tmpdir-");
  const marker = String((Date.now() + 7) % 100000);
  const dir = await tempWorkspace({
    "task.yml": TASK("required"),
    "s.yml": `turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'sleep 304${marker} & setsid sleep 305${marker} & sleep 306${marker}' } }]\n`,
  });
  const { child, done } = startCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")], {
    env: { TMPDIR: tmp },
  });
  const names = ["304", "305", "306"].map((n) => ["sleep", `${n}${marker}`]);
  await until(() => names.every((args) => processesRunning(args).length > 0));
  child.kill("SIGKILL");
  await done;
  for (const args of names) {
    expect(await goneWithin(5000, () => processesRunning(args).length === 0)).toBe(true);
  }
});

test("a run removes the temp dirs of earlier runs whose process is gone, and only those", async () => {
  const tmp = tempDir("agent-run-tmpdir-");
  // A PID that surely is no process now: one past the kernel's limit.
  const deadPid = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")) + 1;
  const stale = path.join(tmp, `agent-run-pid${deadPid}-snapshot-Ab12Cd`);
  const live = path.join(tmp, `agent-run-pid${process.pid}-snapshot-Ef34Gh`);
  const foreign = path.join(tmp, "agent-run-cli-Ij56Kl");
  for (const leftover of [stale, live, foreign]) {
    mkdirSync(path.join(leftover, "git"), { recursive: true });
    writeFileSync(path.join(leftover, "index"), "x");
  }
  const dir = await tempWorkspace({ "task.yml": TASK("off"), "s.yml": "turns:\n  - text: nothing to do\n" });
  const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")], {
    env: { TMPDIR: tmp },
  });
  expect(result.code).toBe(0);
  expect(existsSync(stale)).toBe(false);
  expect(existsSync(live)).toBe(true);
  expect(existsSync(foreign)).toBe(true);
  // And the run's own temp dir is gone with it.
  expect(
    readdirSync(tmp)
      .filter((name) => name.startsWith("agent-run-pid"))
      .sort(),
  ).toEqual([path.basename(live)]);
});
