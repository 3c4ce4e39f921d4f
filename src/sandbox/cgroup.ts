/**
 * A pids cgroup for one run: the kernel's own count of the tasks (processes and threads) in it,
 * refused past `pids.max` with EAGAIN, root included (unlike RLIMIT_NPROC, which root escapes and
 * which counts every process of a user). cgroup v2 where its pids controller is available (a
 * unified hierarchy at /sys/fs/cgroup, as on GitHub's Ubuntu runners), else v1's pids hierarchy
 * (a hybrid or legacy layout). The group is made below the runner's own, named
 * `agent-run-<pid>-<random>`; processes join it by writing `0` to its `cgroup.procs` themselves
 * before they start the command (see process-cap.ts), so nothing forks before it is counted.
 *
 * Making one needs write access to the runner's cgroup: root, or a delegated subtree. Anything
 * that goes wrong (no cgroup file system, no pids controller, a read-only mount, EACCES) makes
 * `createPidsCgroup` return undefined with the reason, never throw.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { watchCgroup } from "../system/reaper.ts";
import { isProcessAlive } from "../system/run-temp.ts";

/** A run's pids cgroup. */
export interface PidsCgroup {
  version: 1 | 2;
  /** Its folder, e.g. `/sys/fs/cgroup/pids/agent-run-123-ab12cd`. */
  dir: string;
  /** Its `cgroup.procs`: a process that writes `0` there moves itself in. */
  procsFile: string;
  /** Tasks in it now. */
  current(): number;
  /** The processes in it now (thread group ids, zombies not yet reaped included); throws when it cannot be read. */
  processes(): number[];
  /** Kills everything in it and removes it. Never rejects; idempotent. */
  remove(): Promise<void>;
}

/** Where the cgroup file systems are mounted, and the runner's place in them. */
export interface CgroupLayout {
  /** /proc/self/mountinfo's text. */
  mountinfo: string;
  /** /proc/self/cgroup's text. */
  cgroup: string;
}

/** Milliseconds `remove` keeps killing what is left in the group before giving up: 5000. */
export const CGROUP_DRAIN_MS = 5000;

/** Makes the run's pids cgroup with `pids.max` = `limit`, or says why it cannot. */
export async function createPidsCgroup(
  limit: number,
  layout: CgroupLayout = readLayout(),
): Promise<{ cgroup: PidsCgroup } | { reason: string }> {
  const reasons: string[] = [];
  for (const candidate of candidates(layout)) {
    try {
      if (candidate.version === 2) await enablePids(candidate.parent);
      await removeStaleGroups(candidate.parent);
      const dir = path.join(candidate.parent, `agent-run-${process.pid}-${randomBytes(3).toString("hex")}`);
      await mkdir(dir);
      // A runner killed outright leaves the group to its reaper, which kills what is in it.
      watchCgroup(dir);
      try {
        await writeFile(path.join(dir, "pids.max"), String(limit));
      } catch (error) {
        await rmdir(dir).catch(() => undefined);
        throw error;
      }
      return { cgroup: handle(candidate.version, dir) };
    } catch (error) {
      reasons.push(`cgroup v${candidate.version} at ${candidate.parent}: ${(error as Error).message}`);
    }
  }
  if (reasons.length === 0) return { reason: "no cgroup file system with the pids controller is mounted" };
  return { reason: reasons.join("; ") };
}

function readLayout(): CgroupLayout {
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return "";
    }
  };
  return { mountinfo: read("/proc/self/mountinfo"), cgroup: read("/proc/self/cgroup") };
}

interface Candidate {
  version: 1 | 2;
  /** The runner's own cgroup folder in that hierarchy: the new group goes below it. */
  parent: string;
}

/** The places a pids cgroup could be made, best first: v2 (when it has pids), then v1's pids. */
export function candidates(layout: CgroupLayout): Candidate[] {
  const mounts = layout.mountinfo
    .split("\n")
    .map(parseMount)
    .filter((mount) => mount !== undefined);
  const own = new Map<string, string>();
  for (const line of layout.cgroup.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (match) own.set(match[1]!, match[2]!);
  }
  const out: Candidate[] = [];
  for (const mount of mounts) {
    if (mount.type !== "cgroup2") continue;
    const parent = below(mount, own.get("") ?? "/");
    if (readText(path.join(parent, "cgroup.controllers")).split(/\s+/).includes("pids")) {
      out.push({ version: 2, parent });
    }
  }
  for (const mount of mounts) {
    if (mount.type !== "cgroup" || !mount.options.split(",").includes("pids")) continue;
    const key = [...own.keys()].find((controllers) => controllers.split(",").includes("pids"));
    out.push({ version: 1, parent: below(mount, (key && own.get(key)) ?? "/") });
  }
  return out;
}

interface Mount {
  root: string;
  point: string;
  type: string;
  options: string;
}

function parseMount(line: string): Mount | undefined {
  const [left, right] = line.split(" - ");
  if (!left || !right) return undefined;
  const fields = left.split(" ");
  const [type, , options] = right.split(" ");
  if (!type || fields.length < 5) return undefined;
  return {
    root: unescapeMountField(fields[3]!),
    point: unescapeMountField(fields[4]!),
    type,
    options: options ?? "",
  };
}

/** mountinfo escapes spaces and such as \040. */
function unescapeMountField(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** The folder of cgroup `own` under `mount` (whose root may itself be a cgroup, in a container). */
function below(mount: Mount, own: string): string {
  const relative = mount.root === "/" ? own : own.startsWith(mount.root) ? own.slice(mount.root.length) : "/";
  return path.join(mount.point, relative);
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

const GROUP_NAME = /^agent-run-(\d+)-[0-9a-f]{6}$/;

/**
 * Removes the empty groups of earlier runs under `parent` whose process is gone (the machine went
 * down before their reapers could). One still holding tasks is left: its PID may be of another PID
 * namespace sharing this hierarchy, whose run is alive.
 */
async function removeStaleGroups(parent: string): Promise<void> {
  const names = await readdir(parent).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(GROUP_NAME.exec(name)?.[1]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    await rmdir(path.join(parent, name)).catch(() => undefined);
  }
}

/** v2: the pids controller must be on in the parent's subtree_control for a child to have pids.max. */
async function enablePids(parent: string): Promise<void> {
  const control = path.join(parent, "cgroup.subtree_control");
  if ((await readFile(control, "utf8")).split(/\s+/).includes("pids")) return;
  await writeFile(control, "+pids");
}

function handle(version: 1 | 2, dir: string): PidsCgroup {
  const procsFile = path.join(dir, "cgroup.procs");
  let removing: Promise<void> | undefined;
  const listed = (text: string) => text.split("\n").filter(Boolean).map(Number);
  const pids = () => listed(readText(procsFile)).filter((pid) => pid > 0 && pid !== process.pid);
  return {
    version,
    dir,
    procsFile,
    current: () => Number(readText(path.join(dir, "pids.current")).trim()) || 0,
    // Read strictly: a group that cannot be read must not look empty to the one who asks.
    processes: () => listed(readFileSync(procsFile, "utf8")),
    remove: () => {
      removing ??= (async () => {
        const deadline = Date.now() + CGROUP_DRAIN_MS;
        // v2 (Linux 5.14+) kills the whole group in one write; otherwise pid by pid, until empty
        // (a process forking meanwhile is in the group too, and goes in the next round).
        if (version === 2 && existsSync(path.join(dir, "cgroup.kill"))) {
          await writeFile(path.join(dir, "cgroup.kill"), "1").catch(() => undefined);
        }
        // Killed tasks leave the group within a millisecond or two as a rule (a process's last
        // threads, bwrap's init after the session ended): waits start short and double up to 20 ms.
        let pause = 1;
        const wait = async () => {
          await new Promise((resolve) => setTimeout(resolve, pause));
          pause = Math.min(pause * 2, 20);
        };
        for (let left = pids(); left.length > 0 && Date.now() < deadline; left = pids()) {
          for (const pid of left) {
            try {
              process.kill(pid, "SIGKILL");
            } catch {}
          }
          await wait();
        }
        while (Date.now() < deadline) {
          try {
            await rmdir(dir);
            return;
          } catch (error) {
            const code = (error as NodeJS.ErrnoException).code;
            if (code === "ENOENT") return;
            // EBUSY while the last killed tasks are being reaped.
            await wait();
          }
        }
      })();
      return removing;
    },
  };
}
