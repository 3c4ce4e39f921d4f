/**
 * The reaper's first line of defence when the runner is killed outright: SIGKILL each process group
 * it was told of. The later ones (the run's cgroup, the marker in the environment) hide a failure
 * of this one in a run as root, so the reaper is tested here alone, from a stand-in runner whose
 * group carries no marker and joins no cgroup, once with each shell found here as the `sh` the
 * reaper runs in: dash's `kill` (Debian's and Ubuntu's `sh`) took `kill -KILL -- -PGID` for a PID
 * of "-" and killed nothing (busybox's, Alpine's sh, complains of the "--" but kills).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { isAlive, waitGone } from "./helpers/cli.ts";
import { tempDir } from "./output-helpers.ts";

const reaperModule = path.resolve("src/system/reaper.ts");

const runnerScript = `
  import { spawn } from "node:child_process";
  import { writeSync } from "node:fs";
  import { watchGroup } from ${JSON.stringify(reaperModule)};
  // A group of its own, an empty environment: neither the marker nor a cgroup can find it.
  const group = spawn("sh", ["-c", "sleep 300 & sleep 300 & wait"], { detached: true, stdio: "ignore", env: {} });
  group.unref();
  watchGroup(group.pid);
  // The one it forgets again must be left alone.
  const spared = spawn("sleep", ["300"], { detached: true, stdio: "ignore", env: {} });
  spared.unref();
  const forget = watchGroup(spared.pid);
  forget();
  writeSync(1, group.pid + " " + spared.pid + "\\n");
  setInterval(() => {}, 1000);
`;

/** PIDs of the processes in group `pgid` that are alive and not zombies. */
function membersOf(pgid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(group) === pgid && state !== "Z") found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The shells a machine's `sh` may be, as far as this one has them (dash: Debian's and Ubuntu's). */
const SHELLS = [
  { name: "dash", file: "/usr/bin/dash" },
  { name: "bash", file: "/usr/bin/bash" },
  { name: "busybox", file: "/usr/bin/busybox" },
].filter((shell) => existsSync(shell.file));

test("the machine has one of those shells to test the reaper with", () => {
  expect(SHELLS.length).toBeGreaterThan(0);
});

/** A PATH whose first folder holds `sh`, a link to `file` (busybox acts as the name it is run by). */
function pathWithSh(file: string): string {
  const bin = path.join(tempDir("agent-run-sh-"), "bin");
  mkdirSync(bin);
  symlinkSync(file, path.join(bin, "sh"));
  return `${bin}:${process.env.PATH ?? ""}`;
}

test.each(SHELLS)(
  "SIGKILL of the runner: the reaper ($name as sh) kills each group it watches, not one it forgot",
  async ({ file }) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", runnerScript], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, PATH: pathWithSh(file) },
    });
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
      child.once("exit", (code) => reject(new Error(`the stand-in runner exited early with ${code}`)));
    });
    const [group, spared] = line.split(" ").map(Number) as [number, number];
    // The shell and its two sleeps.
    for (let tries = 0; tries < 100 && membersOf(group).length < 3; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const members = membersOf(group);
    expect(members.length).toBe(3);

    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    for (const pid of members)
      expect(await waitGone(pid, 5000), `process ${pid} of the watched group`).toBe(true);
    expect(isAlive(spared)).toBe(true);
    process.kill(spared, "SIGKILL");
  },
);
