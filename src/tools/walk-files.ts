/**
 * Walking a folder inside the workspace for grep and find.
 *
 * Depth-first, entries sorted by name within each folder. `.git` folders are always skipped;
 * `.gitignore` files (the root's, those of the folders between the root and the start, and nested
 * ones met on the way) are honoured unless `respectGitignore` is false. Symlinks are reported as
 * such and never followed, so a walk cannot leave the workspace or loop.
 */
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

export interface WalkEntry {
  /** Path relative to the workspace root, forward slashes. */
  path: string;
  absolute: string;
  kind: "file" | "dir" | "symlink";
}

export interface WalkOptions {
  /** Default: true. */
  respectGitignore?: boolean;
  signal?: AbortSignal;
}

interface IgnoreScope {
  /** Folder of the .gitignore, relative to the root ("" for the root). */
  base: string;
  rules: Ignore;
}

function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

async function loadGitignore(root: string, base: string): Promise<IgnoreScope | undefined> {
  try {
    const text = await readFile(join(root, base, ".gitignore"), "utf8");
    return { base, rules: ignore().add(text) };
  } catch {
    return undefined;
  }
}

function isIgnored(scopes: IgnoreScope[], path: string, isDir: boolean): boolean {
  for (const scope of scopes) {
    const rel =
      scope.base === "" ? path : path.startsWith(`${scope.base}/`) ? path.slice(scope.base.length + 1) : "";
    if (rel === "") continue;
    if (scope.rules.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

/** Yields every entry under `start` (an absolute folder inside `root`), `start` itself excluded. */
export async function* walkFiles(
  root: string,
  start: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkEntry> {
  const respect = options.respectGitignore ?? true;
  const startRel = toPosix(relative(root, start));
  const scopes: IgnoreScope[] = [];
  if (respect) {
    const parts = startRel === "" ? [] : startRel.split("/");
    for (let i = 0; i <= parts.length; i++) {
      const scope = await loadGitignore(root, parts.slice(0, i).join("/"));
      if (scope) scopes.push(scope);
    }
  }
  yield* walkFolder(root, startRel, scopes, respect, options.signal);
}

async function* walkFolder(
  root: string,
  folderRel: string,
  scopes: IgnoreScope[],
  respect: boolean,
  signal: AbortSignal | undefined,
): AsyncGenerator<WalkEntry> {
  if (signal?.aborted) throw new Error("the search was aborted");
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, folderRel), { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = folderRel === "" ? entry.name : `${folderRel}/${entry.name}`;
    const absolute = join(root, path);
    if (entry.isDirectory()) {
      if (entry.name === ".git") continue;
      if (respect && isIgnored(scopes, path, true)) continue;
      yield { path, absolute, kind: "dir" };
      const nested = respect ? await loadGitignore(root, path) : undefined;
      yield* walkFolder(root, path, nested ? [...scopes, nested] : scopes, respect, signal);
    } else if (entry.isSymbolicLink()) {
      if (respect && isIgnored(scopes, path, false)) continue;
      yield { path, absolute, kind: "symlink" };
    } else if (entry.isFile()) {
      if (respect && isIgnored(scopes, path, false)) continue;
      yield { path, absolute, kind: "file" };
    }
  }
}
