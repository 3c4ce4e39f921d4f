/**
 * A full disk must not cost the run its outputs to its own leftovers: what the runner itself keeps
 * in the outputs dir but can do without (the full outputs of cut commands) gives way first, before
 * the outputs are written when room is short, and again when a write fails for lack of room.
 */
import fs from "node:fs/promises";

/** Room (bytes) kept free beyond the outputs' own size before our own files are removed: 1 MiB. */
export const SPACE_MARGIN_BYTES = 1024 * 1024;

/** Whether `error` says the disk (or the quota) is full. */
export function isNoSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}

/** Whether the filesystem holding `dir` has less than `bytes` (plus the margin) free; false when unknown. */
export async function roomIsShort(dir: string, bytes: number): Promise<boolean> {
  const stats = await fs.statfs(dir).catch(() => undefined);
  if (!stats) return false;
  return stats.bavail * stats.bsize < bytes + SPACE_MARGIN_BYTES;
}

/**
 * Removes `paths` (folders of ours the run can do without). Returns true when anything was there.
 * Never rejects.
 */
export async function removeOwnFiles(paths: readonly string[]): Promise<boolean> {
  let removed = false;
  for (const target of paths) {
    const exists = await fs.lstat(target).then(
      () => true,
      () => false,
    );
    if (!exists) continue;
    await fs.rm(target, { recursive: true, force: true }).catch(() => {});
    removed = true;
  }
  return removed;
}
