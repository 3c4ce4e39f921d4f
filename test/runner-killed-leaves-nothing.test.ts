import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
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

test.each([
  ["the runner", false],
  ["the runner and its command server together", true],
])("SIGKILL of %s: nothing is left of a command the command server started", async (_who, withServer) => {
  const tmp = tempDir("agent-run-tmpdir-");
  const marker = String((Date.now() + (withServer ? 5 : 3)) % 100000);
  // Turn 1 gives the server (sandbox/command-server.ts) time to start; turn 2 runs in it.
  const attack = `tr '\\0' ' ' < /proc/$PPID/cmdline > parent.txt; sleep 311${marker} & setsid sleep 312${marker} & sleep 313${marker}`;
  const dir = await tempWorkspace({
    "task.yml": TASK("off"),
    "s.yml": `turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'sleep 0.5' } }]\n  - tool_calls: [{ name: bash, arguments: { command: ${JSON.stringify(attack)} } }]\n`,
  });
  const { child, done } = startCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")], {
    env: { TMPDIR: tmp },
  });
  const names = ["311", "312", "313"].map((n) => ["sleep", `${n}${marker}`]);
  await until(() => names.every((args) => processesRunning(args).length > 0));
  // The command's parent was the server, not the runner.
  expect(readFileSync(path.join(dir, "parent.txt"), "utf8")).toMatch(/ -e "use strict"/);
  const server = processesRunning(["sleep", `313${marker}`]).map((pid) =>
    Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]),
  );
  // Together: the server gets no chance to end its commands' groups; the reaper must.
  if (withServer) for (const pid of server) process.kill(pid, "SIGKILL");
  child.kill("SIGKILL");
  await done;
  for (const args of names) {
    expect(await goneWithin(5000, () => processesRunning(args).length === 0)).toBe(true);
  }
  for (const pid of server) expect(await waitGone(pid, 5000)).toBe(true);
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
  // The sandbox's own temp dir (its mask files) is the run's too.
  const ours = () => readdirSync(tmp).filter((name) => name.startsWith(`agent-run-pid${child.pid}-`));
  expect(ours().some((name) => name.includes("-sandbox-"))).toBe(true);
  child.kill("SIGKILL");
  await done;
  for (const args of names) {
    expect(await goneWithin(5000, () => processesRunning(args).length === 0)).toBe(true);
  }
  expect(await goneWithin(5000, () => ours().length === 0)).toBe(true);
  expect(readdirSync(tmp).filter((name) => name.startsWith("agent-run-sandbox-"))).toEqual([]);
});

test("SIGKILL of a resumed runner: the earlier patch's copy goes with its temp dir", async () => {
  const tmp = tempDir("agent-run-tmpdir-");
  const marker = String((Date.now() + 13) % 100000);
  const dir = await tempWorkspace({
    "task.yml": TASK("off"),
    "first.yml":
      "turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'echo one > a.txt' } }]\n  - text: done\n",
    "again.yml": `turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'sleep 307${marker}' } }]\n`,
  });
  const task = path.join(dir, "task.yml");
  const first = await runCli([task, "--replay", path.join(dir, "first.yml")], {
    cwd: dir,
    env: { TMPDIR: tmp },
  });
  expect(first.code, first.stderr).toBe(0);
  const { child, done } = startCli(
    [task, "--resume", ".agent-run", "--replay", path.join(dir, "again.yml")],
    {
      cwd: dir,
      env: { TMPDIR: tmp },
    },
  );
  await until(() => processesRunning(["sleep", `307${marker}`]).length > 0);
  const ours = () => readdirSync(tmp).filter((name) => name.startsWith(`agent-run-pid${child.pid}-`));
  expect(ours().some((name) => name.includes("-resume-"))).toBe(true);
  child.kill("SIGKILL");
  await done;
  expect(await goneWithin(5000, () => ours().length === 0)).toBe(true);
  expect(readdirSync(tmp).filter((name) => /^agent-run-(resume|apply)-/.test(name))).toEqual([]);
});

test("a run removes the temp dirs of earlier runs whose process is gone, and only those", async () => {
  const tmp = tempDir("agent-run-tmpdir-");
  // A PID that surely is no process now: one past the kernel's limit.
  const deadPid = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")) + 1;
  const stale = path.join(tmp, `agent-run-pid${deadPid}-snapshot-Ab12Cd`);
  const live = path.join(tmp, `agent-run-pid${process.pid}-snapshot-Ef34Gh`);
  const foreign = path.join(tmp, "agent-run-cli-Ij56Kl");
  // Named almost like a run's temp dir of a dead process, but not quite: not ours to remove.
  const lookalikes = [
    `agent-run-pid${deadPid}-Snapshot-Ab12Cd`,
    `agent-run-pid${deadPid}-snapshot-Ab12C`,
    `agent-run-pid${deadPid}x-snapshot-Ab12Cd`,
    `agent-run-pid${deadPid}-snapshot-Ab12C.`,
    `agent-run-pid-snapshot-Ab12Cd`,
  ].map((name) => path.join(tmp, name));
  const stale2 = path.join(tmp, `agent-run-pid${deadPid}-tool-output-zz99ZZ`);
  for (const leftover of [stale, stale2, live, foreign, ...lookalikes]) {
    mkdirSync(path.join(leftover, "git"), { recursive: true });
    writeFileSync(path.join(leftover, "index"), "x");
  }
  const dir = await tempWorkspace({ "task.yml": TASK("off"), "s.yml": "turns:\n  - text: nothing to do\n" });
  const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")], {
    env: { TMPDIR: tmp },
  });
  expect(result.code).toBe(0);
  // The reaper sweeps in its own process, which may outlive the run by a little.
  expect(await goneWithin(5000, () => !existsSync(stale) && !existsSync(stale2))).toBe(true);
  expect(existsSync(live)).toBe(true);
  expect(existsSync(foreign)).toBe(true);
  for (const lookalike of lookalikes) expect(existsSync(lookalike)).toBe(true);
  // And the run's own temp dir is gone with it.
  expect(
    await goneWithin(5000, () => {
      const ours = new Set([live, ...lookalikes].map((dir) => path.basename(dir)));
      const left = readdirSync(tmp).filter((name) => name.startsWith("agent-run-pid"));
      return left.length === ours.size && left.every((name) => ours.has(name));
    }),
  ).toBe(true);
});

test("the temp folder is swept at most once an hour: the marker's time says when", async () => {
  const tmp = tempDir("agent-run-tmpdir-");
  const deadPid = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")) + 1;
  const stale = path.join(tmp, `agent-run-pid${deadPid}-snapshot-Qq12Rr`);
  const dir = await tempWorkspace({ "task.yml": TASK("off"), "s.yml": "turns:\n  - text: nothing to do\n" });
  const run = () =>
    runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")], { env: { TMPDIR: tmp } });
  expect((await run()).code).toBe(0);
  const marker = path.join(tmp, "agent-run-swept");
  expect(existsSync(marker)).toBe(true);
  // Left by a machine that went down after the sweep: the next run within the hour leaves it.
  mkdirSync(stale);
  expect((await run()).code).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(existsSync(stale)).toBe(true);
  // An hour on, a run sweeps it.
  const earlier = new Date(Date.now() - 61 * 60 * 1000);
  utimesSync(marker, earlier, earlier);
  expect((await run()).code).toBe(0);
  expect(await goneWithin(5000, () => !existsSync(stale))).toBe(true);
});

test("a link in the marker's place is not followed", async () => {
  const tmp = tempDir("agent-run-tmpdir-");
  const target = path.join(tempDir("agent-run-elsewhere-"), "kept");
  writeFileSync(target, "someone else's\n");
  symlinkSync(target, path.join(tmp, "agent-run-swept"));
  const dir = await tempWorkspace({ "task.yml": TASK("off"), "s.yml": "turns:\n  - text: nothing to do\n" });
  const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")], {
    env: { TMPDIR: tmp },
  });
  expect(result.code).toBe(0);
  expect(readFileSync(target, "utf8")).toBe("someone else's\n");
});

/** The v1 pids or v2 folders of cgroups named for `pid` (`agent-run-<pid>-*`), the runner's parent being the root here. */
function cgroupsOf(pid: number | string): string[] {
  const found: string[] = [];
  for (const root of ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"]) {
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root))
      if (name.startsWith(`agent-run-${pid}-`)) found.push(path.join(root, name));
  }
  return found;
}

const CAN_MAKE_CGROUP = process.getuid?.() === 0 && existsSync("/sys/fs/cgroup");

test.skipIf(!CAN_MAKE_CGROUP)(
  "SIGKILL of the runner: its cgroup goes, with a child that cleared its environment and left its session",
  async () => {
    const marker = String((Date.now() + 13) % 100000);
    const dir = await tempWorkspace({
      "task.yml": TASK("off"),
      "s.yml": `turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'env -i setsid sleep 308${marker} & sleep 309${marker}' } }]\n`,
    });
    const { child, done } = startCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    const escapee = ["sleep", `308${marker}`];
    await until(
      () => processesRunning(escapee).length > 0 && processesRunning(["sleep", `309${marker}`]).length > 0,
    );
    const groups = cgroupsOf(child.pid ?? 0);
    // Without a cgroup (another layout) there is nothing this test can check.
    if (groups.length === 0) return;
    child.kill("SIGKILL");
    await done;
    expect(await goneWithin(5000, () => processesRunning(escapee).length === 0)).toBe(true);
    expect(await goneWithin(5000, () => groups.every((group) => !existsSync(group)))).toBe(true);
  },
);

test.skipIf(!CAN_MAKE_CGROUP)("a run removes the cgroups of earlier runs whose process is gone", async () => {
  const parent = existsSync("/sys/fs/cgroup/pids") ? "/sys/fs/cgroup/pids" : "/sys/fs/cgroup";
  const deadPid = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")) + 2;
  const stale = path.join(parent, `agent-run-${deadPid}-abc123`);
  const live = path.join(parent, `agent-run-${process.pid}-def456`);
  mkdirSync(stale);
  mkdirSync(live);
  try {
    const dir = await tempWorkspace({
      "task.yml": TASK("off"),
      "s.yml": "turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'true' } }]\n  - text: done\n",
    });
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    expect(result.code).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
  } finally {
    for (const group of [stale, live]) if (existsSync(group)) rmdirSync(group);
  }
});

test("a run that ends normally leaves no temp dir: its reaper removes the snapshot's store after the outputs", async () => {
  const tmp = tempDir("agent-run-tmpdir-");
  const dir = await tempWorkspace({
    "task.yml": TASK("off"),
    "s.yml":
      "turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'echo changed > a.txt' } }]\n  - text: done\n",
  });
  const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")], {
    env: { TMPDIR: tmp },
  });
  expect(result.code).toBe(0);
  expect(readFileSync(path.join(dir, ".agent-run", "patch.diff"), "utf8")).toContain("+changed");
  const left = () => readdirSync(tmp).filter((name) => name.startsWith("agent-run-pid"));
  expect(await goneWithin(5000, () => left().length === 0)).toBe(true);
});
