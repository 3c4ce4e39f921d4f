import picomatch from "picomatch";
import { z } from "zod";
import type { AgentTool } from "../core/types.ts";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  type TruncationResult,
  truncateHead,
} from "../system/truncate.ts";
import { createLocalFileOperations } from "./local-operations.ts";
import type { ToolOperations } from "./operations.ts";
import { walkFiles } from "./walk-files.ts";
import { insideToolPath } from "./workspace-path.ts";

export interface FindToolOptions {
  /** Default: 2000. */
  maxLines?: number;
  /** Default: 51200. */
  maxBytes?: number;
  /** Default number of results. Default: 1000. */
  defaultLimit?: number;
  /** Where the file work happens (`lookup`, `list`, `readFiles`). Default: the runner's process. */
  operations?: Partial<ToolOperations>;
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
  const local = createLocalFileOperations(cwd);
  const operations = {
    lookup: options.operations?.lookup ?? local.lookup,
    list: options.operations?.list ?? local.list,
    readFiles: options.operations?.readFiles ?? local.readFiles,
  };
  return {
    name: "find",
    label: "Find",
    description: `Find files and folders in the workspace by glob, honouring .gitignore. Prints root-relative paths, folders ending in "/"; at most ${options.defaultLimit ?? 1000} unless limit is set.`,
    parameters: findParameters,
    async execute(_id, params, signal) {
      const relative = insideToolPath(cwd, params.path ?? ".");
      const info = await operations.lookup(relative);
      if (info.kind === "missing") throw new Error(`Path "${relative}" does not exist in the workspace.`);
      if (info.kind !== "dir") throw new Error(`"${relative}" is not a folder.`);
      const target = { relative };
      const limit = params.limit ?? options.defaultLimit ?? 1000;
      const match = picomatch(params.pattern, { dot: true, basename: !params.pattern.includes("/") });
      const found: string[] = [];
      let limitReached = false;
      const prefix = info.path === "." ? "" : `${info.path}/`;
      for (const entry of await walkFiles(operations, info.path, { signal })) {
        const rel = entry.path.slice(prefix.length);
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
