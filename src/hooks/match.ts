import picomatch from "picomatch";
import type { HookMatch } from "../spec/types.ts";
import { locateToolPath } from "../tools/workspace-path.ts";

/**
 * Whether a rule's `match` selects a tool call. Every given field must hold; no `match` selects
 * every call. `tools` are names or globs over the name the model calls (`mcp__github__*`, see
 * `toolMatches`). `path` is a picomatch glob over the call's `path` argument normalised as the tools
 * do (see `callPaths`): it matches when it matches the path as named or where it really leads
 * through symlinks (a glob without `/` matches the file name at any depth, as in .gitignore); a
 * call without a `path` argument never matches it. `command` matches bash's `command` (see
 * `commandMatches`); calls without one never match it.
 */
export function matchesCall(
  match: HookMatch | undefined,
  toolName: string,
  args: unknown,
  workspace: string,
): boolean {
  if (!match) return true;
  if (match.tools && !match.tools.some((pattern) => toolMatches(pattern, toolName))) return false;
  if (match.path !== undefined) {
    const targets = callPaths(args, workspace);
    if (targets === undefined) return false;
    const isMatch = picomatch(match.path, { dot: true, basename: !match.path.includes("/") });
    if (!targets.some((target) => isMatch(target))) return false;
  }
  if (match.command !== undefined) {
    const command = stringArg(args, "command");
    if (command === undefined || !commandMatches(match.command, command)) return false;
  }
  return true;
}

/**
 * Whether a tool name matches a pattern of `match.tool`: the name itself, or a glob where `*` is any
 * run of characters and `?` one (tool names hold no `/`, so there is nothing else to match).
 */
export function toolMatches(pattern: string, toolName: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === toolName;
  const source = [...pattern].map((c) => (c === "*" ? ".*" : c === "?" ? "." : escapeRegex(c))).join("");
  return new RegExp(`^${source}$`, "s").test(toolName);
}

/**
 * The call's `path` argument relative to the workspace, normalised as the tools normalise it
 * (`resolveToolPath`, src/tools/workspace-path.ts): a leading `@` dropped, resolved against the
 * workspace, an absolute path through the workspace's real location mapped back into it; `/`
 * separators, "." for the workspace itself. Undefined if absent. Symlinks are not followed here (see `callPaths`).
 */
export function callPath(args: unknown, workspace: string): string | undefined {
  return callPaths(args, workspace)?.[0];
}

/**
 * The workspace-relative forms a rule's `path` glob is matched against: first the path as named
 * (`callPath`), then, when it differs, where it really is with every symlink followed, as the
 * tools' own lookup finds it (`locateToolPath`; for a file not created yet, where it would be). A
 * path outside the workspace, or through a symlink leading out or dangling, has only its lexical
 * form (`../x`), which a glob inside the workspace never matches; the tools refuse such paths
 * anyway. Undefined without a `path` argument.
 */
export function callPaths(args: unknown, workspace: string): string[] | undefined {
  const raw = stringArg(args, "path");
  if (raw === undefined || raw === "") return undefined;
  const { relative, real } = locateToolPath(workspace, raw);
  return real === undefined || real === relative ? [relative] : [relative, real];
}

/** A string argument of a call, or undefined. */
export function stringArg(args: unknown, name: string): string | undefined {
  if (args === null || typeof args !== "object") return undefined;
  const value = (args as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * A command pattern is a glob where `*` matches any text (slashes and spaces included) and `?`
 * one character. It matches when it matches the whole command or one of its parts split at `&&`,
 * `||`, `;`, `|` and newlines, so `rm *` also catches `cd x && rm -rf y`. This is a cheap
 * selector for hooks, not a security boundary: bash's own allow/deny parses the shell properly.
 */
export function commandMatches(pattern: string, command: string): boolean {
  const regex = new RegExp(
    `^${[...pattern].map((c) => (c === "*" ? "[\\s\\S]*" : c === "?" ? "[\\s\\S]" : escapeRegex(c))).join("")}$`,
  );
  const parts = [command, ...command.split(/&&|\|\||[;|\n]/)].map((part) => part.trim());
  return parts.some((part) => part !== "" && regex.test(part));
}

function escapeRegex(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}
