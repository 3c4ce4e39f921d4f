import type { BeforeToolCallHook } from "../core/types.ts";
import { locateToolPath } from "../tools/workspace-path.ts";

/** The tools that read files. */
const READ_TOOLS = new Set(["read", "grep", "find", "ls"]);

/**
 * When the workspace's git config holds credentials (`active`), the read-side tools may not look
 * inside a `.git` folder, named directly, through `./`, a case variant or a symlink (the path is
 * resolved as the tools resolve it, `locateToolPath`). This is what keeps `read .git/config` from
 * handing the model an `extraheader` token when the file tools run in the runner's process; inside
 * the sandbox the config is covered by a copy without credentials, so the runner turns this guard
 * on only for file tools that run outside it. A blocked call is counted and listed like any other.
 */
export function withGitDirGuard(
  workspace: string,
  active: boolean,
  next: BeforeToolCallHook | undefined,
): BeforeToolCallHook | undefined {
  if (!active) return next;
  return async (ctx, signal) => {
    if (READ_TOOLS.has(ctx.toolCall.name)) {
      const raw = (ctx.args as { path?: unknown }).path;
      const { relative, real } = locateToolPath(workspace, typeof raw === "string" && raw !== "" ? raw : ".");
      const inGit = (p: string) => p.split("/").some((part) => part.toLowerCase() === ".git");
      if (inGit(relative) || (real !== undefined && inGit(real))) {
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
