/**
 * Whole-file writes: through a temp file next to the target and a rename, so a reader, a kill or a
 * full disk never sees half a file. A write that fails removes its temp file; one a killed process
 * left is removed by its reaper (src/system/reaper.ts), or else by `removeStaleTempFiles`.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { watchTempPath } from "../system/reaper.ts";
import { isProcessAlive } from "../system/run-temp.ts";

const TEMP_NAME = /^(.+)\.(\d+)\.tmp$/;

/** The temp file a write of `file` goes through: `<file>.<pid>.tmp`, removed by the reaper if the process is killed. */
export function tempPathFor(file: string): string {
  const temp = `${file}.${process.pid}.tmp`;
  watchTempPath(temp);
  return temp;
}

/**
 * Up to this many characters or bytes a write is made with synchronous calls: a few syscalls on a
 * local folder cost far less than a trip through the thread pool each (a run's usage.json,
 * summary.md and empty patch: ~1.2 ms each the other way, at the end of every run). 256 KiB.
 */
const SYNC_WRITE_MAX = 256 * 1024;

/** Writes `data` to `file` atomically (creating its folder). On failure `file` is as it was and no temp file is left. */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  encoding: BufferEncoding = "utf8",
): Promise<void> {
  const temp = tempPathFor(file);
  const bytesEncoding = typeof data === "string" ? encoding : undefined;
  if (data.length <= SYNC_WRITE_MAX) {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(temp, data, bytesEncoding);
      renameSync(temp, file);
    } catch (error) {
      try {
        rmSync(temp, { force: true });
      } catch {
        // Left to the reaper, as a killed process's would be.
      }
      throw error;
    }
    return;
  }
  await fs.mkdir(path.dirname(file), { recursive: true });
  try {
    await fs.writeFile(temp, data, bytesEncoding);
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

/** Removes the `*.<pid>.tmp` files in `dir` whose process is gone. Never rejects. */
export async function removeStaleTempFiles(dir: string): Promise<void> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[2]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    await fs.rm(path.join(dir, name), { force: true }).catch(() => {});
  }
}
