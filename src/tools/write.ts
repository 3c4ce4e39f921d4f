import { z } from "zod";
import type { AgentTool } from "../core/types.ts";
import { createLocalFileOperations } from "./local-operations.ts";
import type { ToolOperations } from "./operations.ts";
import { createProtectedPathCheck } from "./protected-paths.ts";
import { insideToolPath } from "./workspace-path.ts";

export interface WriteToolOptions {
  /** Globs relative to the root (e.g. `.git/**`) that write refuses. */
  protectedPaths?: string[];
  /** Where the file work happens (`lookup`, `writeFile`). Default: the runner's process (createLocalOperations). */
  operations?: Partial<ToolOperations>;
}

export const writeParameters = z.strictObject({
  path: z.string().min(1).describe("File to write, relative to the workspace root"),
  content: z.string().describe("The complete new content of the file"),
});
export type WriteToolInput = z.infer<typeof writeParameters>;

export interface WriteToolDetails {
  /** Root-relative path written. */
  path: string;
  /** UTF-8 bytes written. */
  bytes: number;
  /** True when the file did not exist before. */
  created: boolean;
}

/**
 * The write tool: writes a whole file inside the workspace, creating parent folders. The protected
 * globs are checked on the path as named and on its real location, and the file is then written
 * at exactly that real location (no symlink followed), so a link swapped in meanwhile fails the
 * call instead of redirecting it.
 */
export function createWriteTool(
  cwd: string,
  options: WriteToolOptions = {},
): AgentTool<WriteToolInput, WriteToolDetails> {
  const local = createLocalFileOperations(cwd);
  const lookup = options.operations?.lookup ?? local.lookup;
  const writeFile = options.operations?.writeFile ?? local.writeFile;
  const protectedBy = createProtectedPathCheck(options.protectedPaths);

  return {
    name: "write",
    label: "Write",
    description:
      "Write a file in the workspace, replacing it if it exists and creating parent folders as needed. Prefer edit for changes to an existing file.",
    parameters: writeParameters,
    async execute(_id, params) {
      const relative = insideToolPath(cwd, params.path);
      const target = await lookup(relative);
      const pattern = protectedBy({ relative, realRelative: target.path });
      if (pattern !== undefined) {
        throw new Error(`"${relative}" is protected (matches "${pattern}"); it cannot be written.`);
      }
      if (target.kind === "dir") throw new Error(`"${relative}" is a folder; give a file path.`);
      const { created } = await writeFile(target.path, [params.content], { follow: false });
      const bytes = Buffer.byteLength(params.content, "utf8");
      return {
        content: [
          { type: "text", text: `Wrote ${bytes} bytes to ${relative}${created ? " (new file)" : ""}.` },
        ],
        details: { path: relative, bytes, created },
      };
    },
  };
}
