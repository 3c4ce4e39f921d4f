/**
 * Temp dirs of a run, named `agent-run-pid<PID>-<purpose>-XXXXXX` in the system temp dir so that
 * whose they are can be told later: each is removed when the process exits, by the reaper when it is
 * killed, and, should both fail (the machine went down), by the next run that finds its process gone.
 */
import { rmSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { removeInBackground, sweepInBackground, watchTempPath } from "./reaper.ts";

const NAME = /^agent-run-pid(\d+)-[a-z-]+-[A-Za-z0-9]{6}$/;

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
      for (const leftover of live) rmSync(leftover, { recursive: true, force: true });
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

/**
 * Starts removing the temp dirs of earlier runs whose process is gone; once per process, never
 * waited for: the reaper does it in its own process (a self-hosted runner's temp folder may hold
 * tens of thousands of entries), or, without one, this process in the background. A dir whose PID
 * is alive, even in another process that reused the PID, is left alone.
 */
export function removeStaleRunTempDirs(): void {
  if (swept) return;
  swept = true;
  const tmp = os.tmpdir();
  if (!sweepInBackground(tmp)) void sweepHere(tmp);
}

async function sweepHere(tmp: string): Promise<void> {
  const names = await fs.readdir(tmp).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(NAME.exec(name)?.[1]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    await fs.rm(path.join(tmp, name), { recursive: true, force: true }).catch(() => {});
  }
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
