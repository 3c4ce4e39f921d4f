/**
 * The saved tool outputs are redacted in place at the end of the run, without following anything
 * a sandboxed command could have planted in that folder (it is writable from inside).
 */
import { execFileSync } from "node:child_process";
import { link, lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { createRedactor } from "../src/output/redact.ts";
import { redactFilesIn } from "../src/output/redact-files.ts";
import { tempDir } from "./output-helpers.ts";

const SECRET = "planted-secret-value-0123";
const redactor = createRedactor({ extra: [SECRET] });

describe("redactFilesIn", () => {
  test("redacts the files that hold a secret, leaves the others and every link alone", async () => {
    const root = tempDir();
    const dir = path.join(root, "tool-output");
    await mkdir(dir);
    const outside = path.join(root, "outside.txt");
    await writeFile(outside, `host file with ${SECRET}\n`);
    await writeFile(
      path.join(dir, "leak.log"),
      `line 1\nkey=${SECRET}\n${"x".repeat(3_000_000)}\nend ${SECRET}`,
    );
    await writeFile(path.join(dir, "clean.log"), "nothing here\n");
    await symlink(outside, path.join(dir, "symlink.log"));
    await link(outside, path.join(dir, "hardlink.log"));
    execFileSync("mkfifo", [path.join(dir, "fifo.log")]);
    const cleanBefore = await stat(path.join(dir, "clean.log"));

    expect(await redactFilesIn(dir, redactor)).toEqual(["leak.log"]);

    const leak = await readFile(path.join(dir, "leak.log"), "utf8");
    expect(leak.startsWith("line 1\nkey=***\n")).toBe(true);
    expect(leak.endsWith("\nend ***")).toBe(true);
    expect(leak).not.toContain(SECRET);
    expect((await stat(path.join(dir, "clean.log"))).mtimeMs).toBe(cleanBefore.mtimeMs);
    // Neither link was followed: the outside file is as it was, the links are still links.
    expect(await readFile(outside, "utf8")).toBe(`host file with ${SECRET}\n`);
    expect(await readlink(path.join(dir, "symlink.log"))).toBe(outside);
    expect((await lstat(path.join(dir, "hardlink.log"))).nlink).toBe(2);
  });

  test("a folder that does not exist is nothing to do", async () => {
    expect(await redactFilesIn(path.join(tempDir(), "missing"), redactor)).toEqual([]);
  });

  test("stopped (a full disk wants the files gone), it lets go at once and changes nothing", async () => {
    const dir = path.join(tempDir(), "tool-output");
    await mkdir(dir);
    const content = `${"line of output\n".repeat(400_000)}end ${SECRET}\n`;
    await writeFile(path.join(dir, "big.log"), content);
    const stop = new AbortController();
    const redacting = redactFilesIn(dir, redactor, { signal: stop.signal });
    stop.abort();
    expect(await redacting).toEqual([]);
    expect(await readFile(path.join(dir, "big.log"), "utf8")).toBe(content);
    expect(await readdir(dir)).toEqual(["big.log"]);
    // Not stopped, the same file is redacted.
    expect(await redactFilesIn(dir, redactor)).toEqual(["big.log"]);
  });
});
