import { realpath } from "node:fs/promises";
import path from "node:path";
import type { BeforeToolCallHook } from "../core/types.ts";

/** The tools that read files outside any sandbox, in the runner's own process. */
const READ_TOOLS = new Set(["read", "grep", "find", "ls"]);

/**
 * When the workspace's git config holds credentials (`active`), the read-side tools may not look
 * inside a `.git` folder, named directly, through `./`, a case variant or a symlink (the path is
 * resolved to where it really is). They run outside the sandbox, so this is what keeps
 * `read .git/config` from handing the model an `extraheader` token. A blocked call is counted and
 * listed like any other.
 */
export function withGitDirGuard(
  workspace: string,
  active: boolean,
  next: BeforeToolCallHook | undefined,
): BeforeToolCallHook | undefined {
  if (!active) return next;
  let rootReal: Promise<string> | undefined;
  return async (ctx, signal) => {
    if (READ_TOOLS.has(ctx.toolCall.name)) {
      const raw = (ctx.args as { path?: unknown }).path;
      const given = typeof raw === "string" && raw !== "" ? raw.replace(/^@/, "") : ".";
      rootReal ??= realpath(workspace).catch(() => workspace);
      const root = await rootReal;
      const absolute = path.resolve(workspace, given);
      const real = await realpath(absolute).catch(() => absolute);
      const rel = path.relative(root, real);
      const lexical = path.relative(workspace, absolute);
      const inGit = (p: string) => p.split(path.sep).some((part) => part.toLowerCase() === ".git");
      if (inGit(rel) || inGit(lexical)) {
        return {
          block: true,
          reason:
            "the .git folder holds credentials and cannot be read with the file tools; use git commands",
        };
      }
    }
    return next?.(ctx, signal);
  };
}
