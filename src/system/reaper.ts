/**
 * What a runner leaves behind when it dies without running its exit hooks (SIGKILL, OOM killer): a
 * small `sh` process, started once per process, holds a pipe from it. It learns the process groups
 * and temp dirs of the runner as they come and go; when the pipe reaches EOF (the runner is gone,
 * however it ended) it kills every group still registered, then every process still carrying the
 * runner's marker in its environment (which catches children that left their group with `setsid`),
 * and removes the temp dirs, and the run's cgroup after killing what is in it (a child that also
 * cleared its environment). Sandboxed commands need none of this: bwrap's `--die-with-parent` and
 * its PID namespace end them with the runner.
 *
 * Best effort by design: without `sh` (or when it cannot start) nothing is watched and the run goes
 * on. The reaper never keeps the runner alive (its pipe and the child are unreferenced) and never
 * holds the runner's stdout or stderr open.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import type { Socket } from "node:net";
import os from "node:os";
import { executablePath } from "./which.ts";

/** The environment variable every child of a runner carries (set by runProcess); its value is per runner. */
export const OWNER_MARKER_VAR = "AGENTRUN_OWNER";

// Lines on stdin: "g PID" watches a process group, "u PID" forgets it, "d PATH" watches a temp dir,
// "r PATH" removes one now (in the background), "c PATH" watches a cgroup, "s DIR" removes (in the
// background) the run temp dirs in DIR of processes that are gone (run-temp.ts's names: the PID
// after "agent-run-pid", a purpose of lowercase letters and dashes, six letters or digits; alive is
// a /proc entry, or where there is no /proc, \`ps\` knowing the PID, another user's too), "m" says a
// child was given the marker. On EOF: SIGKILL each group, then each cgroup's tasks (until it can be
// removed), then (after an "m") each process whose environment holds the marker, then rm -rf of the
// watched paths still there (one the runner removed costs no rm). A group is killed with
// `kill -KILL -PGID`, no "--" between: dash (Debian's and Ubuntu's sh) reads a "--" after the
// signal as a PID and kills nothing (busybox's complains of it); bash, dash and busybox all take it.
const REAPER_SCRIPT = `
marker="$1"; groups=""; dirs=""; cgroups=""; marked=""
alive() {
  if [ -d /proc/self ]; then [ -d "/proc/$1" ]; else ps -p "$1" >/dev/null 2>&1; fi
}
sweep() {
  for d in "$1"/agent-run-pid[0-9]*-*-??????; do
    n="\${d##*/}"; p="\${n#agent-run-pid}"; p="\${p%%-*}"; rest="\${n#agent-run-pid$p-}"
    purpose="\${rest%-*}"; suffix="\${rest##*-}"
    case "$p" in ""|*[!0-9]*) continue ;; esac
    case "$purpose" in ""|*[!a-z-]*) continue ;; esac
    case "$suffix" in *[!A-Za-z0-9]*) continue ;; esac
    [ "\${#suffix}" -eq 6 ] && [ "$p" != "$PPID" ] && ! alive "$p" && rm -rf -- "$d"
  done
}
while IFS= read -r line; do
  case "$line" in
    "g "*) groups="$groups \${line#g }" ;;
    "u "*) kept=""; for g in $groups; do [ "$g" = "\${line#u }" ] || kept="$kept $g"; done; groups="$kept" ;;
    "d "*) dirs="$dirs\${line#d }
" ;;
    "r "*) rm -rf -- "\${line#r }" & ;;
    "c "*) cgroups="$cgroups\${line#c }
" ;;
    "s "*) sweep "\${line#s }" & ;;
    "m") marked=1 ;;
  esac
done
for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
printf '%s' "$cgroups" | while IFS= read -r c; do
  [ -d "$c" ] || continue
  [ -e "$c/cgroup.kill" ] && echo 1 > "$c/cgroup.kill" 2>/dev/null
  n=0
  while [ $n -lt 250 ] && ! rmdir "$c" 2>/dev/null && [ -d "$c" ]; do
    for p in $(cat "$c/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    sleep 0.02 2>/dev/null || sleep 1; n=$((n + 1))
  done
done
if [ -n "$marked" ]; then
  for f in $(grep -l -s -a -F -e "$marker" /proc/[0-9]*/environ 2>/dev/null); do
    p="\${f#/proc/}"; p="\${p%/environ}"; [ "$p" = "$$" ] || kill -KILL "$p" 2>/dev/null
  done
fi
printf '%s' "$dirs" | while IFS= read -r d; do
  if [ -n "$d" ] && { [ -e "$d" ] || [ -L "$d" ]; }; then rm -rf -- "$d"; fi
done
`;

let reaper: ChildProcess | undefined;
let started = false;
const token = `${process.pid}-${randomBytes(8).toString("hex")}`;
/** Whether any child got the marker: until one has, no process can carry it. */
let markerGiven = false;

/** `AGENTRUN_OWNER=<token>` for a child's environment: the reaper kills what carries it. */
export function ownerMarkerEnv(): Record<string, string> {
  if (!markerGiven) send("m");
  markerGiven = true;
  return { [OWNER_MARKER_VAR]: token };
}

function send(line: string): void {
  if (!started) start();
  const stdin = reaper?.stdin;
  if (!stdin || stdin.destroyed) return;
  stdin.write(`${line}\n`);
}

function start(): void {
  started = true;
  try {
    const child = spawn(
      executablePath("sh"),
      ["-c", REAPER_SCRIPT, "agent-run-reaper", `${OWNER_MARKER_VAR}=${token}`],
      {
        detached: true,
        stdio: ["pipe", "ignore", "ignore"],
      },
    );
    child.on("error", () => {
      reaper = undefined;
    });
    child.stdin?.on("error", () => {});
    child.unref();
    (child.stdin as Socket | null)?.unref();
    // Its removals run beside the run's last steps (a snapshot's store, the sandbox's folder) and
    // its end beside the next run's start: at the lowest priority they take only idle CPU.
    if (child.pid !== undefined) {
      try {
        os.setPriority(child.pid, 19);
      } catch {
        // Not allowed here: it runs at the runner's priority.
      }
    }
    reaper = child;
  } catch {
    reaper = undefined;
  }
}

/** Kills process group `pid` if the runner dies before calling the returned function. */
export function watchGroup(pid: number): () => void {
  send(`g ${pid}`);
  return () => send(`u ${pid}`);
}

/**
 * Removes `target` (a temp dir or file) if the runner dies; one gone before (removed, renamed) is no
 * matter. Paths with a newline are not watched.
 */
export function watchTempPath(target: string): void {
  if (!target.includes("\n")) send(`d ${target}`);
}

/**
 * Has the reaper remove `target` now, in the background, so that the runner need not wait for it
 * (a snapshot's store of a long run: tens of ms). False when there is no reaper to ask: remove it
 * yourself then.
 */
export function removeInBackground(target: string): boolean {
  return askInBackground("r", target);
}

function askInBackground(command: "r" | "s", target: string): boolean {
  if (target.includes("\n")) return false;
  send(`${command} ${target}`);
  const stdin = reaper?.stdin;
  return stdin !== undefined && stdin !== null && !stdin.destroyed;
}

/**
 * Has the reaper remove, in the background, the run temp dirs in `dir` whose process is gone (see
 * run-temp.ts), so that a temp folder of tens of thousands of entries costs the runner nothing: the
 * listing alone took 50 ms and matching its names 10 ms of the runner's thread. False when there is
 * no reaper to ask.
 */
export function sweepInBackground(dir: string): boolean {
  return askInBackground("s", dir);
}

/**
 * Kills the tasks of cgroup `dir` and removes it if the runner dies first (whatever is in it, even a
 * process that cleared its environment and left its session). One removed before is no matter.
 */
export function watchCgroup(dir: string): void {
  if (!dir.includes("\n")) send(`c ${dir}`);
}

/**
 * SIGKILLs every process carrying this runner's marker whose process group is not in `spare` (the
 * groups of calls still running): what the run's commands left behind, with `setsid` or `&`, which
 * would otherwise go on writing into the workspace while its patch is computed. Returns their PIDs.
 * Reads /proc: elsewhere it finds nothing. Never rejects.
 */
export async function killMarkedProcesses(spare: ReadonlySet<number>): Promise<number[]> {
  // Nothing to look for (a sandboxed run's commands start in the sandbox session): no scan of /proc.
  if (!markerGiven) return [];
  const marker = Buffer.from(`${OWNER_MARKER_VAR}=${token}\0`);
  const entries = await readdir("/proc").catch(() => [] as string[]);
  const pids = entries.map(Number).filter((pid) => Number.isInteger(pid) && pid > 0 && pid !== process.pid);
  // Read at once rather than one after another: a few hundred small files, each a round trip.
  const marked = await Promise.all(
    pids.map(async (pid) => {
      const environ = await readFile(`/proc/${pid}/environ`).catch(() => undefined);
      return environ?.includes(marker) ? pid : undefined;
    }),
  );
  const killed: number[] = [];
  for (const pid of marked) {
    if (pid === undefined) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    // Fields after the command name (which may hold spaces): state, ppid, pgrp.
    const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    if (spare.has(pgrp)) continue;
    try {
      process.kill(pid, "SIGKILL");
      killed.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return killed;
}
