/**
 * Paths a command writes or reads through the shell: redirection targets (`> f`, `>> f`, `&> f`,
 * `>| f`, `<> f`, `>& f`, `< f`) and the operands of writing programs (`tee f`, `eslint --fix f`).
 * A written path must lie inside the workspace (symlinks followed, as the file tools resolve them;
 * see workspace-path.ts) and not be protected; a recursive change (`rm -r d`, `mv d e`) must not
 * hold a protected path below it. A read path must lie inside the workspace. A few devices are
 * fine: /dev/null, /dev/stdout, /dev/stderr to write; /dev/null, /dev/stdin, /dev/zero,
 * /dev/urandom to read. A glob is expanded as bash would (against the files there now). A path
 * only known when the command runs (`> $f`, `> ~/x`, a brace expansion, what `xargs` reads), or a
 * relative one after the command changes folder (`cd`), cannot be judged and is refused.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { errorText } from "../../core/errors.ts";
import { createProtectedPathCheck } from "../protected-paths.ts";
import { createWorkspace, type ResolvedPath, WorkspacePathError } from "../workspace-path.ts";
import type { Word } from "./types.ts";

export interface TargetCheck {
  word: Word;
  /** Who uses it, for the reason: "`>`", "`tee`". */
  by: string;
  kind: "write" | "read";
  recursive?: boolean;
}

export interface TargetContext {
  workspace: string;
  protectedPaths: string[];
  /** False once the command changes folder: relative paths then mean something else. */
  cwdKnown: boolean;
}

const WRITE_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"]);
const READ_DEVICES = new Set([
  "/dev/null",
  "/dev/stdin",
  "/dev/zero",
  "/dev/urandom",
  "/dev/random",
  "/dev/fd/0",
]);
/** Files a recursive change may hold before it is refused as too large to judge. */
const MAX_WALKED = 20_000;

/** The first refusal among `targets`, or undefined when every one is fine. Never throws. */
export async function judgeTargets(
  targets: readonly TargetCheck[],
  context: TargetContext,
): Promise<string | undefined> {
  const workspace = createWorkspace(context.workspace);
  const isProtected = createProtectedPathCheck(context.protectedPaths);
  for (const target of targets) {
    const refusal = await judgeTarget(target, context, workspace, isProtected).catch(
      (error: unknown) => `${describe(target)} cannot be judged (${errorText(error)})`,
    );
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

function describe(target: TargetCheck): string {
  return `${target.by} \`${target.word.text}\``;
}

async function judgeTarget(
  target: TargetCheck,
  context: TargetContext,
  workspace: ReturnType<typeof createWorkspace>,
  isProtected: (resolved: ResolvedPath) => string | undefined,
): Promise<string | undefined> {
  const { word } = target;
  const what = target.kind === "write" ? "writes" : "reads";
  if (word.hidden || !word.literal || word.brace || word.tilde) {
    return `${describe(target)} ${what} a path only known when the command runs, which cannot be judged; name a path inside the workspace`;
  }
  const devices = target.kind === "write" ? WRITE_DEVICES : READ_DEVICES;
  if (devices.has(word.text)) return undefined;
  if (!path.isAbsolute(word.text) && !context.cwdKnown) {
    return `${describe(target)}: a relative path after the command changes folder (\`cd\`) cannot be judged; use a path from the workspace root`;
  }
  const paths = word.paths ?? (word.glob ? await expandGlob(word.text, context.workspace) : [word.text]);
  for (const candidate of paths) {
    let resolved: ResolvedPath;
    try {
      resolved = await workspace.resolve(candidate);
    } catch (error) {
      if (error instanceof WorkspacePathError)
        return `${describe(target)} ${what} outside what the policy allows: ${error.message}`;
      throw error;
    }
    if (target.kind === "read") continue;
    const pattern = isProtected(resolved);
    if (pattern !== undefined) {
      return `${describe(target)} writes \`${resolved.relative}\`, a protected path (\`${pattern}\`); no command may change it`;
    }
    if (target.recursive && resolved.kind === "dir") {
      const inside = await protectedBelow(resolved, isProtected);
      if (inside !== undefined)
        return `${describe(target)} changes everything in \`${resolved.relative}\`, which holds ${inside}`;
    }
  }
  return undefined;
}

/** A protected path below `folder` (symlinks not followed), as words for the reason. */
async function protectedBelow(
  folder: ResolvedPath,
  isProtected: (resolved: ResolvedPath) => string | undefined,
): Promise<string | undefined> {
  const queue = [""];
  let seen = 0;
  while (queue.length > 0) {
    const sub = queue.shift()!;
    const entries = await readdir(path.join(folder.real, sub), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++seen > MAX_WALKED) return `more than ${MAX_WALKED} files, too many to judge`;
      const below = sub ? `${sub}/${entry.name}` : entry.name;
      const join = (base: string) => (base === "." ? below : `${base}/${below}`);
      const relative = join(folder.relative);
      const pattern = isProtected({ ...folder, relative, realRelative: join(folder.realRelative) });
      if (pattern !== undefined) return `the protected path \`${relative}\` (\`${pattern}\`)`;
      if (entry.isDirectory()) queue.push(below);
    }
  }
  return undefined;
}

/** The paths bash expands `pattern` to (relative to `cwd`), or the pattern itself when none match. */
async function expandGlob(pattern: string, cwd: string): Promise<string[]> {
  const absolute = path.isAbsolute(pattern);
  const parts = pattern.split("/").filter((part, index) => part !== "" || index === 0);
  let current = [absolute ? "/" : ""];
  for (const part of absolute ? parts.slice(1) : parts) {
    if (!/[*?[]/.test(part) && !/[@!+]\(/.test(part)) {
      current = current.map((prefix) => path.join(prefix, part));
      continue;
    }
    const isMatch = picomatch(part, { dot: part.startsWith(".") });
    const next: string[] = [];
    for (const prefix of current) {
      const names = await readdir(path.resolve(cwd, prefix || ".")).catch(() => [] as string[]);
      for (const name of names) if (isMatch(name)) next.push(path.join(prefix, name));
    }
    current = next;
    if (current.length === 0) return [pattern];
  }
  return current;
}
