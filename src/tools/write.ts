import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import type { AgentTool } from "../core/types.ts";
import { createProtectedPathCheck } from "./protected-paths.ts";
import { createWorkspace } from "./workspace-path.ts";

/** File access of the write tool, swappable in tests. */
export interface WriteOperations {
  writeFile(path: string, content: string): Promise<void>;
  mkdir(path: string): Promise<void>;
}

export interface WriteToolOptions {
  /** Globs relative to the root (e.g. `.git/**`) that write refuses. */
  protectedPaths?: string[];
  operations?: Partial<WriteOperations>;
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

const defaultOperations: WriteOperations = {
  writeFile: (path, content) => writeFile(path, content, "utf8"),
  mkdir: async (path) => {
    await mkdir(path, { recursive: true });
  },
};

/** The write tool: writes a whole file inside the workspace, creating parent folders. */
export function createWriteTool(
  cwd: string,
  options: WriteToolOptions = {},
): AgentTool<WriteToolInput, WriteToolDetails> {
  const workspace = createWorkspace(cwd);
  const operations: WriteOperations = { ...defaultOperations, ...options.operations };
  const protectedBy = createProtectedPathCheck(options.protectedPaths);

  return {
    name: "write",
    label: "Write",
    description:
      "Write a file in the workspace, replacing it if it exists and creating parent folders as needed. Prefer edit for changes to an existing file.",
    parameters: writeParameters,
    async execute(_id, params) {
      const target = await workspace.resolve(params.path);
      const pattern = protectedBy(target);
      if (pattern !== undefined) {
        throw new Error(`"${target.relative}" is protected (matches "${pattern}"); it cannot be written.`);
      }
      if (target.stats?.isDirectory()) throw new Error(`"${target.relative}" is a folder; give a file path.`);
      const created = target.stats === undefined;
      await operations.mkdir(dirname(target.real));
      await operations.writeFile(target.real, params.content);
      const bytes = Buffer.byteLength(params.content, "utf8");
      return {
        content: [
          {
            type: "text",
            text: `Wrote ${bytes} bytes to ${target.relative}${created ? " (new file)" : ""}.`,
          },
        ],
        details: { path: target.relative, bytes, created },
      };
    },
  };
}
