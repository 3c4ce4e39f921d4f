import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createWriteTool } from "../src/tools/index.ts";
import { makeWorkspace, run, textOf } from "./tools-support.ts";

describe("write", () => {
  test("creates parent folders and reports bytes and that the file is new", async () => {
    const root = await makeWorkspace();
    const result = await run(createWriteTool(root), { path: "a/b/c.txt", content: "héllo\n" });
    expect(await readFile(join(root, "a/b/c.txt"), "utf8")).toBe("héllo\n");
    expect(result.details).toEqual({ path: "a/b/c.txt", bytes: 7, created: true });
    expect(textOf(result)).toBe("Wrote 7 bytes to a/b/c.txt (new file).");
  });

  test("overwrites an existing file and says it was not new", async () => {
    const root = await makeWorkspace({ "x.txt": "old" });
    const result = await run(createWriteTool(root), { path: "x.txt", content: "new" });
    expect(result.details.created).toBe(false);
    expect(textOf(result)).toBe("Wrote 3 bytes to x.txt.");
  });

  test("refuses protected paths with the glob that protects them", async () => {
    const root = await makeWorkspace({ ".github/workflows/ci.yml": "on: push\n" });
    const tool = createWriteTool(root, { protectedPaths: [".git/**", ".github/workflows/**"] });
    await expect(run(tool, { path: ".github/workflows/ci.yml", content: "x" })).rejects.toThrow(
      '".github/workflows/ci.yml" is protected (matches ".github/workflows/**"); it cannot be written.',
    );
    await expect(run(tool, { path: ".git/hooks/pre-commit", content: "x" })).rejects.toThrow("is protected");
    expect(await readFile(join(root, ".github/workflows/ci.yml"), "utf8")).toBe("on: push\n");
  });

  test("uses injected operations: the path as looked up, written without following symlinks", async () => {
    const root = await makeWorkspace();
    const writes: string[] = [];
    // Every path leads through a link to real/; `follow: false` refuses the link, as it must.
    const tool = createWriteTool(root, {
      operations: {
        lookup: async (path) => ({ path: `real/${path}`, kind: "missing", size: 0, links: 0 }),
        writeFile: async (path, parts, options) => {
          writes.push(`${path}=${parts.join("")} follow=${options?.follow}`);
          if (!path.startsWith("real/")) throw new Error(`"${path}" goes through a symlink; refused.`);
          return { created: true, path };
        },
      },
    });
    await run(tool, { path: "./f.txt", content: "c" });
    expect(writes).toEqual(["f.txt=c follow=false", "real/f.txt=c follow=false"]);
  });
});
