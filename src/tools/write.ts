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
 *
 * A path with no symlink on the way is its own real location, so such a path that no glob protects
 * is written at once with `follow: false`: one round trip to a sandbox session instead of a lookup
 * and then the write (~0.7 ms a call on a 2-core runner). Anything else that refuses, a symlink
 * included, is then looked up and written the careful way.
 */
export function createWriteTool(
  cwd: string,
  options: WriteToolOptions = {},
): AgentTool<WriteToolInput, WriteToolDetails> {
  const local = createLocalFileOperations(cwd);
  const lookup = options.operations?.lookup ?? local.lookup;
  const writeFile = options.operations?.writeFile ?? local.writeFile;
  const protectedBy = createProtectedPathCheck(options.protectedPaths);

  /**
   * The careful way: the real location looked up and checked, then written with no symlink
   * followed. Taken when the direct write refuses (a symlink on the way, a folder, a protected
   * name), so its errors and messages are the tool's.
   */
  const writeWhereItIs = async (relative: string, content: string) => {
    const target = await lookup(relative);
    const pattern = protectedBy({ relative, realRelative: target.path });
    if (pattern !== undefined) {
      throw new Error(`"${relative}" is protected (matches "${pattern}"); it cannot be written.`);
    }
    if (target.kind === "dir") throw new Error(`"${relative}" is a folder; give a file path.`);
    return writeFile(target.path, [content], { follow: false });
  };

  return {
    name: "write",
    label: "Write",
    description:
      "Write a file in the workspace, replacing it if it exists and creating parent folders as needed. Prefer edit for changes to an existing file.",
    parameters: writeParameters,
    async execute(_id, params) {
      const relative = insideToolPath(cwd, params.path);
      const direct =
        protectedBy({ relative, realRelative: relative }) === undefined
          ? await writeFile(relative, [params.content], { follow: false }).catch(() => undefined)
          : undefined;
      const { created } = direct ?? (await writeWhereItIs(relative, params.content));
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
