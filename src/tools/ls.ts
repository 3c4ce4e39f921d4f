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
import { insideToolPath, WorkspacePathError } from "./workspace-path.ts";

export interface LsToolOptions {
  /** Default: 2000. */
  maxLines?: number;
  /** Default: 51200. */
  maxBytes?: number;
  /** Default number of entries. Default: 500. */
  defaultLimit?: number;
  /** Where the file work happens (`list`). Default: the runner's process (createLocalOperations). */
  operations?: Partial<ToolOperations>;
}

export const lsParameters = z.strictObject({
  path: z.string().optional().describe("Folder to list, relative to the workspace root. Default: the root"),
  limit: z.number().int().min(1).optional().describe("Maximum entries. Default: 500"),
});
export type LsToolInput = z.infer<typeof lsParameters>;

export interface LsToolDetails {
  /** Entries in the folder (all of them, not only those shown). */
  count: number;
  limitReached: boolean;
  truncation?: TruncationResult;
}

/**
 * The ls tool: one folder's entries, sorted by name (case-insensitively, then by code point),
 * dotfiles included, folders marked with a trailing "/" and symlinks with a trailing "@".
 */
export function createLsTool(
  cwd: string,
  options: LsToolOptions = {},
): AgentTool<LsToolInput, LsToolDetails> {
  const list = options.operations?.list ?? createLocalFileOperations(cwd).list;
  return {
    name: "ls",
    label: "List",
    description: `List a folder in the workspace, sorted by name; folders end in "/", symlinks in "@". At most ${options.defaultLimit ?? 500} entries unless limit is set.`,
    parameters: lsParameters,
    async execute(_id, params) {
      const relative = insideToolPath(cwd, params.path ?? ".");
      const target = { relative };
      const [listing] = await list([relative]);
      if (!listing?.ok) {
        if (listing?.code === "not-a-folder")
          throw new Error(`"${relative}" is not a folder; use read for files.`);
        throw WorkspacePathError.from(listing ?? { code: "io", message: "no listing" }, relative);
      }
      const names = listing.entries
        .map((entry) =>
          entry.kind === "dir" ? `${entry.name}/` : entry.kind === "symlink" ? `${entry.name}@` : entry.name,
        )
        .sort((a, b) => {
          // Code points of the lower-cased names, not localeCompare: its first call sets up ICU's
          // collator (~10 ms of the first ls of a run).
          const [x, y] = [a.toLowerCase(), b.toLowerCase()];
          if (x !== y) return x < y ? -1 : 1;
          return a < b ? -1 : a > b ? 1 : 0;
        });
      const limit = params.limit ?? options.defaultLimit ?? 500;
      const shown = names.slice(0, limit);
      const details: LsToolDetails = { count: names.length, limitReached: names.length > limit };
      if (names.length === 0)
        return { content: [{ type: "text", text: `(${target.relative} is empty)` }], details };
      const truncation = truncateHead(shown.join("\n"), {
        maxLines: options.maxLines ?? DEFAULT_MAX_LINES,
        maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
      });
      let text = truncation.content;
      const notes: string[] = [];
      if (details.limitReached)
        notes.push(`Showing ${limit} of ${names.length} entries; raise limit to see more.`);
      if (truncation.truncated) {
        details.truncation = truncation;
        notes.push(`Output cut to ${truncation.outputLines} entries.`);
      }
      if (notes.length > 0) text += `\n\n[${notes.join(" ")}]`;
      return { content: [{ type: "text", text }], details };
    },
  };
}
