import { relative } from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import type { AgentTool } from "../core/types.ts";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  type TruncationResult,
  truncateHead,
} from "../system/truncate.ts";
import { walkFiles } from "./walk-files.ts";
import { createWorkspace } from "./workspace-path.ts";

export interface FindToolOptions {
  /** Default: 2000. */
  maxLines?: number;
  /** Default: 51200. */
  maxBytes?: number;
  /** Default number of results. Default: 1000. */
  defaultLimit?: number;
}

export const findParameters = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Glob over paths relative to the search folder, e.g. "**/*.ts" or "*.json" (no slash: matches the name)',
    ),
  path: z.string().optional().describe("Folder to search, relative to the workspace root. Default: the root"),
  limit: z.number().int().min(1).optional().describe("Maximum results. Default: 1000"),
});
export type FindToolInput = z.infer<typeof findParameters>;

export interface FindToolDetails {
  count: number;
  /** True when the search stopped at `limit` results. */
  limitReached: boolean;
  truncation?: TruncationResult;
}

/** The find tool: paths matching a glob under a folder, honouring .gitignore; folders end in "/". */
export function createFindTool(
  cwd: string,
  options: FindToolOptions = {},
): AgentTool<FindToolInput, FindToolDetails> {
  const workspace = createWorkspace(cwd);
  return {
    name: "find",
    label: "Find",
    description: `Find files and folders in the workspace by glob, honouring .gitignore. Prints root-relative paths, folders ending in "/"; at most ${options.defaultLimit ?? 1000} unless limit is set.`,
    parameters: findParameters,
    async execute(_id, params, signal) {
      const root = await workspace.resolve(".");
      const target = await workspace.resolve(params.path ?? ".", { mustExist: true });
      if (!target.stats?.isDirectory()) throw new Error(`"${target.relative}" is not a folder.`);
      const limit = params.limit ?? options.defaultLimit ?? 1000;
      const match = picomatch(params.pattern, { dot: true, basename: !params.pattern.includes("/") });
      const found: string[] = [];
      let limitReached = false;
      for await (const entry of walkFiles(root.real, target.real, { signal })) {
        const rel = relative(target.real, entry.absolute).split("\\").join("/");
        if (!match(rel)) continue;
        if (found.length >= limit) {
          limitReached = true;
          break;
        }
        found.push(entry.kind === "dir" ? `${entry.path}/` : entry.path);
      }
      const details: FindToolDetails = { count: found.length, limitReached };
      if (found.length === 0) {
        return {
          content: [
            {
              type: "text",
              text: `No paths match "${params.pattern}" in ${target.relative === "." ? "the workspace" : target.relative}.`,
            },
          ],
          details,
        };
      }
      const truncation = truncateHead(found.join("\n"), {
        maxLines: options.maxLines ?? DEFAULT_MAX_LINES,
        maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
      });
      let text = truncation.content;
      const notes: string[] = [];
      if (limitReached)
        notes.push(`Stopped at ${limit} results; narrow the pattern or path, or raise limit.`);
      if (truncation.truncated) {
        details.truncation = truncation;
        notes.push(`Output cut to ${truncation.outputLines} of ${truncation.totalLines} paths.`);
      }
      if (notes.length > 0) text += `\n\n[${notes.join(" ")}]`;
      return { content: [{ type: "text", text }], details };
    },
  };
}
