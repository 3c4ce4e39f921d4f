import { closeSync, unlinkSync } from "node:fs";

/**
 * Closing and removing on the way out, where a failure changes nothing (the descriptor is already
 * closed, the file already gone) and must not hide the error that got us there.
 */
export function closeQuietly(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    closeSync(fd);
  } catch {}
}

export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}
