/**
 * Finds the folder a GitHub Actions runner is installed in, so the sandbox can hide it. A
 * self-hosted runner keeps its registration (`.runner`) and the key it authenticates to GitHub
 * with (`.credentials`, `.credentials_rsaparams`) beside its binaries, its logs in `_diag`, and
 * every job's checkout and temp files under `_work`. Outside $HOME (often `/actions-runner` or
 * `/opt/...`), none of that is covered by the sandbox's other tmpfs mounts, and `/` is bound
 * read-only, not hidden. Hiding the whole folder, rather than listing its secret files, keeps
 * whatever a later runner version adds there out of reach too.
 */
import { lstat } from "node:fs/promises";
import path from "node:path";

/** Files only a configured runner's install folder holds. */
const RUNNER_MARKERS = [".runner", ".credentials"];

/**
 * Install folders of the runner executing this process, found above the places a runner puts
 * things: its own Node (the action runs on it), the job's temp folder, the workspace and tool
 * cache. The filesystem root is never one.
 */
export async function findRunnerInstallDirs(
  env: Record<string, string | undefined>,
  execPath: string,
): Promise<string[]> {
  const starts = [execPath, env.RUNNER_TEMP, env.GITHUB_WORKSPACE, env.RUNNER_TOOL_CACHE].filter(
    (value): value is string => typeof value === "string" && path.isAbsolute(value),
  );
  const found = new Set<string>();
  const seen = new Set<string>();
  for (const start of starts) {
    for (let dir = path.dirname(path.resolve(start)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      if (seen.has(dir)) break;
      seen.add(dir);
      if (await holdsMarker(dir)) found.add(dir);
    }
  }
  return [...found];
}

async function holdsMarker(dir: string): Promise<boolean> {
  for (const name of RUNNER_MARKERS) {
    const info = await lstat(path.join(dir, name)).catch(() => undefined);
    if (info?.isFile()) return true;
  }
  return false;
}
