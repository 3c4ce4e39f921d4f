/**
 * The cap on the processes a run's commands may have at once (`caps.processes`, docs/security.md
 * "Caps"), and how a command is started under it: a `launcher`, an argv prefix that puts itself
 * under the cap and then `exec`s the command, so nothing the command does happens outside it.
 *
 * - **A pids cgroup** where one can be made (root, or a delegated subtree; cgroup.ts): the
 *   launcher writes `0` to the group's `cgroup.procs` (moving itself in) and execs. The kernel
 *   refuses a fork past `pids.max` for root too. `dispose` kills whatever is still in the group
 *   (an unsandboxed `setsid` child included) and removes it.
 * - **RLIMIT_NPROC** otherwise, for a user other than root: the launcher sets `ulimit -u`. It
 *   counts every process (thread) of that user, the runner's and other jobs' included, so the
 *   limit is the count at the start of the run plus the cap. Root ignores it: as root without a
 *   cgroup there is no cap, and the note says so.
 * The launcher is `sh` for the cgroup (a shell builtin and an exec: about a millisecond) and
 * bash for the rlimit (`ulimit -u` is bash's spelling; dash calls it `-p`).
 */
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { createPidsCgroup, type PidsCgroup } from "./cgroup.ts";

export interface ProcessCap {
  /** Which mechanism holds the cap. */
  kind: "cgroup-v2" | "cgroup-v1" | "rlimit" | "none";
  /** The cap, in processes (threads included for a cgroup). */
  limit: number;
  /** One line for the summary's notes: which cap applied. */
  note: string;
  /** The argv prefix a command is started through; undefined when nothing caps it ("none"). */
  launcher: string[] | undefined;
  /**
   * The same as a line of bash to put first in a `bash -c` script (`…; ` included): the shell puts
   * itself under the cap before the rest runs, without the launcher's two extra execs.
   */
  scriptPrefix: string | undefined;
  /** The run's cgroup, when there is one. */
  cgroup: PidsCgroup | undefined;
  /** Ends what is left under the cap and removes the cgroup. Never rejects. */
  dispose(): Promise<void>;
}

export interface ProcessCapOptions {
  limit: number;
  /** The runner's uid. Default: process.getuid(). */
  uid?: number;
  /** Default: createPidsCgroup (tests pass a failing one to reach the fallbacks). */
  makeCgroup?: typeof createPidsCgroup;
}

const JOIN_SCRIPT = 'echo 0 > "$1" || exit 126; shift; exec "$@"';
const ULIMIT_SCRIPT = 'ulimit -u "$1" || exit 126; shift; exec "$@"';

/** Sets up the run's process cap. Never throws: the worst case is `kind: "none"` with its note. */
export async function createProcessCap(options: ProcessCapOptions): Promise<ProcessCap> {
  const limit = Math.max(1, Math.floor(options.limit));
  const uid = options.uid ?? process.getuid?.() ?? -1;
  const made = await (options.makeCgroup ?? createPidsCgroup)(limit);
  if ("cgroup" in made) {
    const { cgroup } = made;
    return {
      kind: cgroup.version === 2 ? "cgroup-v2" : "cgroup-v1",
      limit,
      note: `Commands could have at most ${limit} processes at once (caps.processes; a pids cgroup, v${cgroup.version}, threads counted).`,
      launcher: ["/bin/sh", "-c", JOIN_SCRIPT, "agent-run-cap", cgroup.procsFile],
      scriptPrefix: `echo 0 > ${shellWord(cgroup.procsFile)} || exit 126; `,
      cgroup,
      dispose: () => cgroup.remove(),
    };
  }
  if (uid !== 0) {
    const existing = tasksOf(uid);
    const user = userName(uid);
    return {
      kind: "rlimit",
      limit,
      note: `Commands could have at most ${limit} processes more than the ${existing} user ${user} had at the start (caps.processes through RLIMIT_NPROC, which counts all of that user's processes; no pids cgroup could be made: ${made.reason}).`,
      launcher: [
        "bash",
        "--norc",
        "--noprofile",
        "-c",
        ULIMIT_SCRIPT,
        "agent-run-cap",
        String(existing + limit),
      ],
      scriptPrefix: `ulimit -u ${existing + limit} || exit 126; `,
      cgroup: undefined,
      dispose: async () => {},
    };
  }
  return {
    kind: "none",
    limit,
    note: `Commands were not held to caps.processes: the runner is root, which RLIMIT_NPROC does not hold, and no pids cgroup could be made (${made.reason}).`,
    launcher: undefined,
    scriptPrefix: undefined,
    cgroup: undefined,
    dispose: async () => {},
  };
}

/** Single-quotes a word for sh and bash. */
function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function userName(uid: number): string {
  try {
    return os.userInfo().username;
  } catch {
    // A uid without a passwd entry (containers).
    return String(uid);
  }
}

/** Tasks (threads) of processes whose real uid is `uid`: what RLIMIT_NPROC counts. */
export function tasksOf(uid: number): number {
  let count = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, "utf8");
    } catch {
      continue;
    }
    const real = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    if (real === undefined || Number(real) !== uid) continue;
    count += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
  }
  return count;
}

/** `command` started through `launcher` (the command itself when there is none). */
export function launch(
  launcher: readonly string[] | undefined,
  file: string,
  args: readonly string[],
): { file: string; args: string[] } {
  if (!launcher || launcher.length === 0) return { file, args: [...args] };
  return { file: launcher[0]!, args: [...launcher.slice(1), file, ...args] };
}
