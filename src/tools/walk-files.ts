/**
 * Walking a folder inside the workspace for grep and find, through the file operations.
 *
 * Depth-first, entries sorted by name within each folder. `.git` folders are always skipped;
 * `.gitignore` files (the root's, those of the folders between the root and the start, and nested
 * ones met on the way) are honoured unless `respectGitignore` is false. Symlinks are reported as
 * such and never followed, so a walk cannot leave the workspace or loop. The folders are listed a
 * level at a time, each level in a few batched calls (`list`, then `readFiles` for its
 * `.gitignore` files), so a sandboxed walk costs a few round trips per level, not one per folder.
 */
import ignore, { type Ignore } from "ignore";
import type { DirEntry, FileOperations } from "./operations.ts";

export interface WalkEntry {
  /** Path relative to the workspace root, forward slashes. */
  path: string;
  kind: "file" | "dir" | "symlink";
}

export interface WalkOptions {
  /** Default: true. */
  respectGitignore?: boolean;
  signal?: AbortSignal;
}

/** Folders listed per `list` call. */
const LIST_BATCH = 256;
/** A `.gitignore` larger than this is ignored (it is not a real one): 1 MiB. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

interface IgnoreScope {
  /** Folder of the .gitignore, relative to the root ("" for the root). */
  base: string;
  rules: Ignore;
}

interface Folder {
  path: string;
  scopes: IgnoreScope[];
  entries: WalkEntry[];
}

const join = (folder: string, name: string) => (folder === "." || folder === "" ? name : `${folder}/${name}`);

function isIgnored(scopes: IgnoreScope[], path: string, isDir: boolean): boolean {
  for (const scope of scopes) {
    const rel =
      scope.base === "" ? path : path.startsWith(`${scope.base}/`) ? path.slice(scope.base.length + 1) : "";
    if (rel === "") continue;
    if (scope.rules.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

/**
 * Every entry under `start` (a real, root-relative folder path as `lookup` returns it; "." for the
 * root), `start` itself excluded, in walk order. A folder that vanishes meanwhile is skipped.
 */
export async function walkFiles(
  operations: Pick<FileOperations, "list" | "readFiles">,
  start: string,
  options: WalkOptions = {},
): Promise<WalkEntry[]> {
  const respect = options.respectGitignore ?? true;
  const startRel = start === "." ? "" : start;
  const loadGitignores = async (folders: string[]): Promise<(IgnoreScope | undefined)[]> => {
    if (!respect || folders.length === 0) return folders.map(() => undefined);
    const contents = await operations.readFiles(
      folders.map((folder) => join(folder, ".gitignore")),
      { maxFileBytes: MAX_GITIGNORE_BYTES, follow: false },
    );
    return contents.map((content, i) =>
      content.kind === "content"
        ? { base: folders[i] as string, rules: ignore().add(content.data.toString("utf8")) }
        : undefined,
    );
  };

  // The root's .gitignore and those of the folders down to the start (the start's own comes with its listing).
  const parts = startRel === "" ? [] : startRel.split("/");
  const above = parts.map((_, i) => parts.slice(0, i).join("/"));
  const rootScopes = (await loadGitignores(above)).filter((scope) => scope !== undefined);

  const folders = new Map<string, Folder>();
  let level: { path: string; scopes: IgnoreScope[] }[] = [{ path: startRel, scopes: rootScopes }];
  while (level.length > 0) {
    const next: typeof level = [];
    for (let i = 0; i < level.length; i += LIST_BATCH) {
      if (options.signal?.aborted) throw new Error("the search was aborted");
      const batch = level.slice(i, i + LIST_BATCH);
      const listings = await operations.list(
        batch.map((folder) => folder.path || "."),
        { follow: false },
      );
      const withGitignore = batch.filter((_, j) => {
        const listing = listings[j];
        return (
          listing?.ok === true && listing.entries.some((e) => e.name === ".gitignore" && e.kind === "file")
        );
      });
      const loaded = await loadGitignores(withGitignore.map((folder) => folder.path));
      const own = new Map(withGitignore.map((folder, j) => [folder.path, loaded[j]]));
      for (const [j, folder] of batch.entries()) {
        const listing = listings[j];
        if (!listing?.ok) continue;
        const nested = own.get(folder.path);
        const scopes = nested ? [...folder.scopes, nested] : folder.scopes;
        const entries = kept(folder.path, listing.entries, respect ? scopes : []);
        folders.set(folder.path, { path: folder.path, scopes, entries });
        for (const entry of entries) if (entry.kind === "dir") next.push({ path: entry.path, scopes });
      }
    }
    level = next;
  }

  const out: WalkEntry[] = [];
  const emit = (path: string) => {
    for (const entry of folders.get(path)?.entries ?? []) {
      out.push(entry);
      if (entry.kind === "dir") emit(entry.path);
    }
  };
  emit(startRel);
  return out;
}

/** The entries of one folder the walk keeps, sorted by name: no `.git` folder, nothing ignored. */
function kept(folder: string, entries: DirEntry[], scopes: IgnoreScope[]): WalkEntry[] {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: WalkEntry[] = [];
  for (const entry of sorted) {
    if (entry.kind === "other") continue;
    if (entry.kind === "dir" && entry.name === ".git") continue;
    const path = join(folder, entry.name);
    if (scopes.length > 0 && isIgnored(scopes, path, entry.kind === "dir")) continue;
    out.push({ path, kind: entry.kind });
  }
  return out;
}
