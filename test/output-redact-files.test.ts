/**
 * The saved tool outputs are redacted in place at the end of the run, without following anything
 * a sandboxed command could have planted in that folder (it is writable from inside).
 */
import { execFileSync } from "node:child_process";
import { link, lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { createRedactor } from "../src/output/redact.ts";
import { lookForSecrets, redactFilesIn } from "../src/output/redact-files.ts";
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

  test("read in pieces cut at line feeds: a secret anywhere is found, and the rest comes out byte for byte", async () => {
    const dir = path.join(tempDir(), "tool-output");
    await mkdir(dir);
    // A token nobody told the runner of, in base64 on a line of its own: found only through the
    // look for base64 runs, which is asked of each piece's bytes.
    const token = `ghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;
    const encoded = Buffer.from(`token: ${token}`).toString("base64");
    // Text no step redacts, with two-byte characters, so that pieces are cut next to them.
    const filler = (lines: number) => "héllo wörld, a line of output\n".repeat(lines);
    const plantings: Record<string, string> = {
      // In the first piece: a known secret in base64 wrapped at 76 characters across lines.
      wrapped: `${Buffer.from(`say ${SECRET} ok ${"x".repeat(60)}`)
        .toString("base64")
        .replace(/.{76}/g, "$&\n")}\n${filler(40_000)}`,
      // In a line longer than a piece (64 KiB), past its first piece.
      longLine: `${filler(10)}${"y".repeat(200_000)} ${SECRET} ${"y".repeat(10)}\n${filler(10)}`,
      // Where the 1 MiB reads meet: the secret's bytes split between two reads.
      readBoundary: `${"z".repeat(1024 * 1024 - 10)}${SECRET}\n${filler(100)}`,
      base64Token: `${filler(30_000)}${encoded}\n${filler(10)}`,
      // After the last line feed, with nothing after it.
      lastLine: `${filler(30_000)}end ${SECRET}`,
    };
    for (const [name, content] of Object.entries(plantings)) {
      const file = path.join(dir, `${name}.log`);
      await writeFile(file, content);
      expect(await lookForSecrets(file, redactor), name).toBeUndefined();
    }
    const clean = path.join(dir, "clean.log");
    await writeFile(clean, `${filler(40_000)}${"q".repeat(150_000)}\n${filler(5)}tail`);
    expect(await lookForSecrets(clean, redactor)).toBeDefined();

    expect((await redactFilesIn(dir, redactor)).sort()).toEqual(
      Object.keys(plantings)
        .map((name) => `${name}.log`)
        .sort(),
    );
    for (const [name, content] of Object.entries(plantings)) {
      const redacted = await readFile(path.join(dir, `${name}.log`), "utf8");
      // Nothing here crosses a piece's cut, so the pieces' redaction is the whole text's.
      expect(redacted === redactor.redact(content), name).toBe(true);
      expect(redacted, name).not.toContain(SECRET);
      expect(redacted, name).not.toContain(encoded);
    }
  });

  test("a binary output holding a secret: every byte but the secret's comes out as it was", async () => {
    const dir = path.join(tempDir(), "tool-output");
    await mkdir(dir);
    const umlauts = "geheimnis-\u00e4\u00f6\u00fc-\u00df-7";
    const withBoth = createRedactor({ extra: [SECRET, umlauts] });
    // Bytes that are not UTF-8: decoded as such, each stray one would come back as U+FFFD.
    const noise = (seed: number) =>
      Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 7919 + seed * 104_729) % 251));
    const parts = [noise(1), Buffer.from(SECRET), noise(2), Buffer.from(umlauts), noise(3)];
    await writeFile(path.join(dir, "blob.bin"), Buffer.concat(parts));

    expect(await redactFilesIn(dir, withBoth)).toEqual(["blob.bin"]);

    const stars = Buffer.from("***");
    const expected = Buffer.concat([parts[0]!, stars, parts[2]!, stars, parts[4]!]);
    expect((await readFile(path.join(dir, "blob.bin"))).equals(expected)).toBe(true);
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
