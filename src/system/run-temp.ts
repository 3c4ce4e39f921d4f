/**
 * Temp dirs of a run, named `agent-run-pid<PID>-<purpose>-XXXXXX` in the system temp dir so that
 * whose they are can be told later: each is removed when the process exits, by the reaper when it is
 * killed, and, should both fail (the machine went down), by a later run that finds its process gone.
 */
import { closeSync, constants, lstatSync, openSync, rmSync, writeSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { removeInBackground, sweepInBackground, watchTempPath } from "./reaper.ts";

const live = new Set<string>();
let exitHookInstalled = false;

/** Creates a temp dir for `purpose` (lowercase letters and dashes), removed whatever ends the process. */
export async function makeRunTempDir(purpose: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `agent-run-pid${process.pid}-${purpose}-`));
  live.add(dir);
  watchTempPath(dir);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const leftover of live) {
        try {
          rmSync(leftover, { recursive: true, force: true });
        } catch {
          // A process still writing in it (the spawner's last command, in a run that ended
          // early) raced the removal: the reaper, which watches it, removes it once the runner is
          // gone. An exit hook that threw would end the run with a stack trace instead.
        }
      }
    });
  }
  return dir;
}

/**
 * Removes a dir made by `makeRunTempDir`. Safe to call more than once; never rejects. With
 * `background`, the reaper removes it while the caller goes on (the runner may exit first), when
 * there is a reaper.
 */
export async function removeRunTempDir(dir: string, options: { background?: boolean } = {}): Promise<void> {
  live.delete(dir);
  if (options.background && removeInBackground(dir)) return;
  await fs.rm(dir, { recursive: true, force: true }).catch(() => {});
}

let swept = false;

/** A file in the temp folder whose time says when a run last swept it. */
export const SWEPT_MARKER = "agent-run-swept";
/** How often the temp folder is swept at most: once an hour. */
export const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Starts removing the temp dirs of earlier runs whose process is gone; once per process, never
 * waited for: the reaper does it in its own process (a self-hosted runner's temp folder may hold
 * tens of thousands of entries: 35 ms of the kernel's time to list), by the names this module
 * gives; without a reaper (no `sh`, where bash cannot run either) nothing is swept. At most once
 * an hour per temp folder: such dirs are left only when both a runner and its reaper died (the
 * machine went down). A dir whose PID is alive, even in another process that reused the PID, is
 * left alone.
 */
export function removeStaleRunTempDirs(): void {
  if (swept) return;
  swept = true;
  const tmp = os.tmpdir();
  const marker = path.join(tmp, SWEPT_MARKER);
  try {
    const info = lstatSync(marker);
    if (info.isFile() && Date.now() - info.mtimeMs < SWEEP_INTERVAL_MS) return;
  } catch {
    // Never swept: sweep.
  }
  try {
    // Never through a link: the temp folder is everyone's.
    const fd = openSync(
      marker,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      writeSync(fd, String(Date.now()));
    } finally {
      closeSync(fd);
    }
  } catch {
    // Another user's marker, or a folder this process cannot write to: swept by every run.
  }
  sweepInBackground(tmp);
}

/** Whether a process with this PID exists (a zombie counts; so does another user's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
