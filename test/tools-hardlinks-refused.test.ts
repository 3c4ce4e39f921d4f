/**
 * Without the sandbox, a workspace file with more than one hard link may share its inode with a
 * file outside (a pnpm store, `git clone --local`, or a planted link): writing it would change the
 * outside file too, so write and edit refuse it. Reading it is allowed (docs/tools.md says why).
 */
import { link, readFile, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createEditTool, createGrepTool, createReadTool, createWriteTool } from "../src/tools/index.ts";
import { failureOf, makeWorkspace, run, textOf } from "./tools-support.ts";

async function setup() {
  const outside = await makeWorkspace({ "store.txt": "from the store\n" });
  const root = await makeWorkspace({ "own.txt": "own\n" });
  await link(join(outside, "store.txt"), join(root, "linked.txt"));
  return {
    root,
    outsideFile: join(outside, "store.txt"),
    cleanup: () => Promise.all([rm(root, { recursive: true }), rm(outside, { recursive: true })]),
  };
}

describe("a file hard-linked from outside the workspace (sandbox off)", () => {
  test("write refuses it and the outside file keeps its content", async () => {
    const { root, outsideFile, cleanup } = await setup();
    const message = await failureOf(run(createWriteTool(root), { path: "linked.txt", content: "pwned\n" }));
    expect(message).toBe(
      '"linked.txt" has 2 hard links; tools do not change it, since that would change the file under its other names too, which may lie outside the workspace.',
    );
    expect(await readFile(outsideFile, "utf8")).toBe("from the store\n");
    await cleanup();
  });

  test("edit refuses it, also through a symlink inside the workspace", async () => {
    const { root, outsideFile, cleanup } = await setup();
    const edit = createEditTool(root);
    for (const path of ["linked.txt", "./linked.txt"]) {
      const message = await failureOf(run(edit, { path, edits: [{ oldText: "store", newText: "pwned" }] }));
      expect(message).toMatch(/has 2 hard links/);
    }
    expect(await readFile(outsideFile, "utf8")).toBe("from the store\n");
    await cleanup();
  });

  test("read and grep may read it: the content is what the workspace holds", async () => {
    const { root, cleanup } = await setup();
    expect(textOf(await run(createReadTool(root), { path: "linked.txt" }))).toBe("1\tfrom the store");
    expect(textOf(await run(createGrepTool(root), { pattern: "store" }))).toBe(
      "linked.txt:1: from the store",
    );
    await cleanup();
  });

  test("once the other name is gone, the file is an ordinary one again", async () => {
    const { root, outsideFile, cleanup } = await setup();
    await unlink(outsideFile);
    await run(createWriteTool(root), { path: "linked.txt", content: "mine now\n" });
    expect(await readFile(join(root, "linked.txt"), "utf8")).toBe("mine now\n");
    await cleanup();
  });
});
