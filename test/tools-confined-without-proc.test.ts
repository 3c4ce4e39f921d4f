/**
 * Where /proc/self/fd does not exist (macOS, Windows), the confined file access walks paths with
 * lstat and opens the last component O_NOFOLLOW: the same refusals. Forced here on Linux by an
 * fs whose existsSync says /proc/self/fd is missing.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { link, mkdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createConfinedFs } from "../src/tools/confined-fs.ts";
import { createConfinedWalk } from "../src/tools/confined-walk.ts";
import { exactBytesEdit } from "../src/tools/edit-bytes.ts";
import { looksBinary } from "../src/tools/file-kind.ts";
import { makeWorkspace } from "./tools-support.ts";

const noProc = { ...fs, existsSync: (path: fs.PathLike) => path !== "/proc/self/fd" && fs.existsSync(path) };

function failure(body: () => unknown): string {
  try {
    body();
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
  throw new Error("expected a refusal");
}

describe("confined file access without /proc/self/fd", () => {
  test("the same refusals, and ordinary work goes through", async () => {
    const outside = await makeWorkspace({ "secret.txt": "secret\n" });
    const root = await makeWorkspace({ "a.txt": "a\n", "dir/b.txt": "b\n" });
    await symlink(join(outside, "secret.txt"), join(root, "out-file"));
    await symlink(outside, join(root, "out-dir"));
    await symlink("nowhere", join(root, "dangling"));
    await symlink("dir", join(root, "in-dir"));
    await link(join(outside, "secret.txt"), join(root, "hard.txt"));
    execFileSync("mkfifo", [join(root, "fifo")]);
    await mkdir(join(root, "empty"));
    const confined = createConfinedFs({ fs: noProc, createConfinedWalk, looksBinary, exactBytesEdit }, root);

    expect(failure(() => confined.lookup("out-file"))).toMatch(/^symlink-outside: .*leads outside/);
    expect(failure(() => confined.writeFile("out-dir/x.txt", ["x"], true))).toMatch(/^symlink-outside/);
    expect(failure(() => confined.writeFile("dangling", ["x"], true))).toMatch(/^dangling-symlink/);
    expect(failure(() => confined.open("fifo", "read", true))).toMatch(/^special-file/);
    expect(failure(() => confined.writeFile("hard.txt", ["x"], true))).toMatch(/^hardlinked/);
    expect(failure(() => confined.writeFile("in-dir/c.txt", ["x"], false))).toMatch(/^changed/);
    expect(failure(() => confined.lookup("../x"))).toMatch(/^outside/);

    expect(confined.lookup("in-dir/b.txt")).toEqual({ path: "dir/b.txt", kind: "file", size: 2, links: 1 });
    expect(confined.writeFile("in-dir/new/c.txt", ["c\n"], true)).toEqual({
      created: true,
      path: "dir/new/c.txt",
    });
    expect(await readFile(join(root, "dir/new/c.txt"), "utf8")).toBe("c\n");
    const [listing] = confined.list(["."], false);
    expect(listing?.ok && listing.entries.map((entry) => entry.name).sort()).toContain("in-dir");
    const [content] = confined.readFiles(["a.txt"], false, {
      maxFileBytes: 100,
      skipBinary: true,
      budgetBytes: 100,
    });
    expect(content?.kind === "content" && content.data.toString()).toBe("a\n");
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
  });
});
