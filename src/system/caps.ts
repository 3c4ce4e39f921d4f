/**
 * The caps on what a run's commands and tool calls may use up (docs/security.md, "Caps"), with
 * their defaults. Every cap is configurable in the task spec (`caps:`); these are the values when
 * it says nothing. A cap stops or cuts what passes it and tells the model; it never ends the run.
 */

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export interface ResourceCaps {
  /**
   * Bytes of one command's saved output (bash, command hooks). Past it the command's process group
   * is stopped and the model told how much was kept. Default: 32 MiB.
   */
  commandOutputBytes: number;
  /**
   * Bytes all saved command outputs of a run may hold together (`<outputs>/tool-output`): the
   * oldest finished ones are removed to make room; a running command that would pass it alone is
   * stopped. Default: 256 MiB.
   */
  savedOutputBytes: number;
  /** Size of the sandbox's `/tmp` (a tmpfs). Default: 1 GiB. */
  tmpBytes: number;
  /** Size of the sandbox's `/dev/shm` (a tmpfs). Default: 1 GiB. */
  devShmBytes: number;
  /** Size of the sandbox's `$HOME` (a tmpfs). Default: 1 GiB. */
  homeBytes: number;
  /** Processes (threads included where a pids cgroup enforces it) a run's commands may have at once. Default: 1024. */
  processes: number;
  /** Bytes of tool results (text, images, details) one turn may keep; later results are cut. Default: 4 MiB. */
  turnResultBytes: number;
  /** Tool calls of one assistant message that are executed; the rest are refused (blocked). Default: 512. */
  turnToolCalls: number;
}

/** The caps when the spec sets none. */
export const DEFAULT_CAPS: Readonly<ResourceCaps> = Object.freeze({
  commandOutputBytes: 32 * MiB,
  savedOutputBytes: 256 * MiB,
  tmpBytes: 1 * GiB,
  devShmBytes: 1 * GiB,
  homeBytes: 1 * GiB,
  processes: 1024,
  turnResultBytes: 4 * MiB,
  turnToolCalls: 512,
});

const UNITS: Array<[string, number]> = [
  ["GiB", GiB],
  ["MiB", MiB],
  ["KiB", 1024],
  ["B", 1],
];

/** Bytes as a spec would write them: `32MiB`, `1GiB`, `1536KiB`, `100B` (exact, the largest unit that divides). */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of UNITS) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}B`;
}

/** Bytes rounded for reading: `812 B`, `3.4 KiB`, `69.9 MiB`, `1.2 GiB`. */
export function formatBytesApprox(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < MiB) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < GiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  return `${(bytes / GiB).toFixed(1)} GiB`;
}
