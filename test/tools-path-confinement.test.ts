import { execFileSync } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  createEditTool,
  createFindTool,
  createGrepTool,
  createLsTool,
  createReadTool,
  createWriteTool,
} from "../src/tools/index.ts";
import { failureOf, makeWorkspace, run, textOf } from "./tools-support.ts";

async function setup() {
  const outside = await makeWorkspace({ "secret.txt": "TOP SECRET\n", "dir/inner.txt": "outside inner\n" });
  const root = await makeWorkspace({ "inside.txt": "hello\n", "src/a.ts": "const a = 1;\n" });
  await symlink(join(outside, "secret.txt"), join(root, "link-file"));
  await mkdir(join(root, "deep/er"), { recursive: true });
  await symlink(outside, join(root, "deep/er/link-dir"));
  await symlink(join(root, "inside.txt"), join(root, "link-inside"));
  await symlink(join(root, "nowhere"), join(root, "dangling"));
  execFileSync("mkfifo", [join(root, "pipe")]);
  return { root, outside };
}

type Attempt = (root: string, outside: string, path: string) => Promise<unknown>;

const tools: Record<string, Attempt> = {
  read: (root, _outside, path) => run(createReadTool(root), { path }),
  write: (root, _outside, path) => run(createWriteTool(root), { path, content: "pwned\n" }),
  edit: (root, _outside, path) =>
    run(createEditTool(root), { path, edits: [{ oldText: "TOP SECRET", newText: "pwned" }] }),
  grep: (root, _outside, path) => run(createGrepTool(root), { pattern: "SECRET", path }),
  find: (root, _outside, path) => run(createFindTool(root), { pattern: "*", path }),
  ls: (root, _outside, path) => run(createLsTool(root), { path }),
};

describe.for(Object.entries(tools))("%s confinement", ([_name, attempt]) => {
  test("refuses .. out of the root", async () => {
    const { root, outside } = await setup();
    const message = await failureOf(attempt(root, outside, "../x/secret.txt"));
    expect(message).toMatch(/outside the workspace/);
  });

  test("refuses an absolute path elsewhere", async () => {
    const { root, outside } = await setup();
    const message = await failureOf(attempt(root, outside, join(outside, "secret.txt")));
    expect(message).toMatch(/outside the workspace/);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  test("refuses a symlinked file that leads out", async () => {
    const { root, outside } = await setup();
    const message = await failureOf(attempt(root, outside, "link-file"));
    expect(message).toMatch(/symlink "link-file", which leads outside the workspace/);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  test("refuses a symlinked folder that leads out, deep in the path", async () => {
    const { root, outside } = await setup();
    const message = await failureOf(attempt(root, outside, "deep/er/link-dir/secret.txt"));
    expect(message).toMatch(/symlink "deep\/er\/link-dir", which leads outside the workspace/);
  });

  test("refuses a dangling symlink", async () => {
    const { root, outside } = await setup();
    const message = await failureOf(attempt(root, outside, "dangling"));
    expect(message).toMatch(/whose target does not exist/);
  });

  test("refuses a FIFO (not a regular file or folder)", async () => {
    const { root, outside } = await setup();
    const message = await failureOf(attempt(root, outside, "pipe"));
    expect(message).toMatch(/not a regular file or folder/);
  });
});

describe("paths that stay inside", () => {
  test("absolute paths inside the root and symlinks within it are fine", async () => {
    const { root } = await setup();
    expect(textOf(await run(createReadTool(root), { path: join(root, "inside.txt") }))).toBe("1\thello");
    expect(textOf(await run(createReadTool(root), { path: "link-inside" }))).toBe("1\thello");
    await run(createWriteTool(root), { path: "src/../new.txt", content: "x" });
    expect(await readFile(join(root, "new.txt"), "utf8")).toBe("x");
  });

  test("a write through a dangling symlink does not create its target", async () => {
    const { root } = await setup();
    await writeFile(join(root, "inside.txt"), "hello\n");
    await failureOf(run(createWriteTool(root), { path: "dangling", content: "x" }));
    await expect(readFile(join(root, "nowhere"), "utf8")).rejects.toThrow();
  });
});
