import { realpath } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * Folders no task's workspace may be: a run snapshots its whole workspace, gives the model tools
 * over it and writes its outputs into it. The filesystem root, a home folder or a system folder
 * (and anything under /proc, /sys or /dev) as the workspace is always a mistake (`workdir: /`, a
 * `--cwd` that lost its variable) and would snapshot the machine. Folders inside them are fine:
 * /home/me/project, /tmp/build, /opt/app.
 */
const SYSTEM_FOLDERS = new Set([
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/media",
  "/mnt",
  "/opt",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/snap",
  "/srv",
  "/sys",
  "/tmp",
  "/usr",
  "/usr/bin",
  "/usr/lib",
  "/usr/local",
  "/usr/local/bin",
  "/usr/local/lib",
  "/usr/sbin",
  "/usr/share",
  "/var",
  "/var/lib",
  "/var/log",
  "/var/tmp",
  // macOS
  "/Applications",
  "/Library",
  "/System",
  "/Users",
  "/Volumes",
  "/private",
  "/private/tmp",
  "/private/var",
]);
const NOTHING_INSIDE = ["/proc", "/sys", "/dev"];

/**
 * Why `workspace` (an absolute path) cannot be a task's workspace, completing "the workspace X …",
 * or undefined when it can. Symbolic links are followed; `env.HOME` and the OS's idea of the home
 * folder both count.
 */
export async function refusedWorkspace(
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const real = await realpath(workspace).catch(() => workspace);
  const homes = [env.HOME, os.homedir()]
    .filter((home): home is string => typeof home === "string" && home !== "")
    .map((home) => path.resolve(home));
  for (const dir of new Set([path.resolve(workspace), real])) {
    if (path.parse(dir).root === dir) return "is the filesystem root";
    for (const home of homes) {
      if (dir === home) return "is the home folder";
      if (home.startsWith(`${dir}${path.sep}`)) return `holds the home folder ${home}`;
    }
    if (SYSTEM_FOLDERS.has(dir) || dir === path.resolve(os.tmpdir())) return "is a system folder";
    const pseudo = NOTHING_INSIDE.find((root) => dir.startsWith(`${root}/`));
    if (pseudo) return `is inside ${pseudo}`;
  }
  return undefined;
}

/** What a workspace should be instead, after a refusal. */
export const WORKSPACE_ADVICE = "the project's folder (workdir: in the spec, or --cwd)";
