/**
 * Where a command the runner starts by name for itself (`git`, `sh`) is, found once in PATH's
 * absolute folders instead of by the child at every spawn. The point is which file runs: PATH may
 * name a relative folder (".", "bin"), and the runner's git runs in the workspace, so a `git` a
 * checked-out repository or the model left there would have run outside the sandbox as the
 * runner's own. The search the child no longer makes (an `execve` tried in each folder before the
 * right one) saved nothing measurable here: 17 spawns of a 20-turn session took 38-40 ms of the
 * runner's thread either way, most of it the fork.
 */
import type * as NodeFs from "node:fs";
import fs from "node:fs";

const found = new Map<string, string>();

/** `name`'s absolute path in `env`'s PATH (see findExecutable), looked up once per name and PATH. */
export function executablePath(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = `${name}\u0000${env.PATH ?? ""}`;
  let file = found.get(key);
  if (file === undefined) {
    file = findExecutable(name, env.PATH, fs);
    found.set(key, file);
  }
  return file;
}

/**
 * The first regular, executable file called `name` in the absolute folders of `searchPath`: what
 * `execvp` would run, as the spawn's `env.PATH` is what Node searches. Relative folders (".",
 * "bin", an empty entry) are passed over: they name a place in the child's working folder, for most
 * of the runner's commands the workspace, where the model could leave a `git` of its own. `name`
 * itself when it has a slash or no folder has it (the spawn then fails as it would have).
 */
export function findExecutable(
  name: string,
  searchPath: string | undefined,
  files: Pick<typeof NodeFs, "statSync" | "accessSync" | "constants">,
): string {
  if (name.includes("/")) return name;
  for (const folder of (searchPath ?? "").split(":")) {
    if (!folder.startsWith("/")) continue;
    const candidate = folder.endsWith("/") ? `${folder}${name}` : `${folder}/${name}`;
    try {
      if (!files.statSync(candidate).isFile()) continue;
      files.accessSync(candidate, files.constants.X_OK);
      return candidate;
    } catch {
      // Not there, or not executable: execvp goes on to the next folder too.
    }
  }
  return name;
}
