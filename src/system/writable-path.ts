import { constants } from "node:fs";
import { lstat, mkdir, open, realpath, rmdir, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { errorText } from "../core/errors.ts";

/**
 * Checks, before a run starts, that agent-run can write where it was told to: the outputs folder
 * and the `--record` file. Each check really creates what it must (the folders, a probe file
 * removed at once), since permission bits lie (root, read-only mounts, full disks). Never throws
 * and never blocks: a FIFO is not opened for writing (that waits for a reader), and folders are
 * created one by one (Node's `mkdir(…, { recursive: true })` never returns for a path under /proc).
 * A failure is one line completing "<path> …".
 */
export type WritableResult = { ok: true; created: string[] } | { ok: false; message: string };

/** Kernel filesystems that hold no user files: writing there fails or means something else. */
const PSEUDO_ROOTS = ["/proc", "/sys", "/dev"];
/** …except these, which are ordinary places to write. */
const PSEUDO_EXCEPTIONS = ["/dev/shm"];

/**
 * Makes `dir` and its missing parents, then writes and removes a probe file in it. `created` lists
 * the folders it made, outermost first, so a caller that gives up can remove them again.
 */
export async function prepareWritableDir(dir: string): Promise<WritableResult> {
  const pseudo = await pseudoFilesystemOf(dir);
  if (pseudo) return { ok: false, message: `is inside ${pseudo}, which holds no files of ours` };
  const made = await makeDirs(dir);
  if (!made.ok) return made;
  const probed = await probe(dir);
  if (!probed.ok) await removeDirs(made.created);
  return probed.ok ? made : probed;
}

/** Removes folders `prepareWritableDir` made (innermost first), each only if still empty. */
export async function removeDirs(created: readonly string[]): Promise<void> {
  for (const dir of [...created].reverse()) await rmdir(dir).catch(() => {});
}

/**
 * A file agent-run will write later (and rewrite): it is a regular file that can be opened for
 * writing, or it does not exist yet and its folder can be made and written to.
 */
export async function checkWritableFile(file: string): Promise<WritableResult> {
  const pseudo = await pseudoFilesystemOf(file);
  if (pseudo) return { ok: false, message: `is inside ${pseudo}, which holds no files of ours` };
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error) {
    if (info.code !== "ENOENT") return { ok: false, message: failure(info) };
    const dir = await prepareWritableDir(path.dirname(file));
    // The recorder makes the folder again when it writes; nothing is left behind if it never does.
    if (dir.ok) await removeDirs(dir.created);
    return dir;
  }
  if (info.isDirectory()) return { ok: false, message: "is a folder" };
  if (!info.isFile()) return { ok: false, message: "is not a regular file (a FIFO, device or socket)" };
  try {
    const handle = await open(file, constants.O_WRONLY | constants.O_NONBLOCK);
    await handle.close();
    return { ok: true, created: [] };
  } catch (error) {
    return { ok: false, message: failure(error) };
  }
}

/** The pseudo filesystem (`/proc`, `/sys`, `/dev`) `target` is in, after symlinks; or undefined. */
async function pseudoFilesystemOf(target: string): Promise<string | undefined> {
  const real = await realpathOfNearest(path.resolve(target));
  const inside = (root: string) => real === root || real.startsWith(`${root}/`);
  if (PSEUDO_EXCEPTIONS.some(inside)) return undefined;
  return PSEUDO_ROOTS.find(inside);
}

/** The real path of `target`, or of its nearest existing ancestor joined with the rest. */
async function realpathOfNearest(target: string): Promise<string> {
  const rest: string[] = [];
  let current = target;
  for (;;) {
    const real = await realpath(current).catch(() => undefined);
    if (real !== undefined) return path.join(real, ...rest.reverse());
    const parent = path.dirname(current);
    if (parent === current) return target;
    rest.push(path.basename(current));
    current = parent;
  }
}

async function makeDirs(dir: string): Promise<WritableResult> {
  const missing: string[] = [];
  let current = path.resolve(dir);
  for (;;) {
    const info = await lstat(current).catch((error: NodeJS.ErrnoException) => error);
    if (!(info instanceof Error)) {
      const target = info.isSymbolicLink() ? await stat(current).catch(() => undefined) : info;
      if (!target?.isDirectory()) {
        return {
          ok: false,
          message:
            current === path.resolve(dir) ? "is not a folder" : `cannot be made: ${current} is not a folder`,
        };
      }
      break;
    }
    if (info.code !== "ENOENT") return { ok: false, message: `cannot be made: ${failure(info)}` };
    missing.push(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  const created: string[] = [];
  for (const folder of missing.reverse()) {
    try {
      await mkdir(folder);
      created.push(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
      await removeDirs(created);
      return { ok: false, message: `cannot be made: ${failure(error)}` };
    }
  }
  return { ok: true, created };
}

async function probe(dir: string): Promise<WritableResult> {
  const file = path.join(dir, `.agent-run-probe-${process.pid}-${Date.now()}`);
  try {
    const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.write("x");
    } finally {
      await handle.close();
    }
  } catch (error) {
    await unlink(file).catch(() => {});
    return { ok: false, message: `cannot be written: ${failure(error)}` };
  }
  await unlink(file).catch(() => {});
  return { ok: true, created: [] };
}

function failure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "EROFS":
      return "the file system is read-only";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENOSPC":
    case "EDQUOT":
      return "no space left on the device";
    case "ENOTDIR":
      return "a part of the path is not a folder";
    case "ELOOP":
      return "a loop of symbolic links";
    case "ENXIO":
      return "it is a FIFO or socket with nothing at the other end";
    default:
      return code ?? errorText(error);
  }
}
