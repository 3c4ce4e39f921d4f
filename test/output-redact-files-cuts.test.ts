/**
 * A saved output is looked through and redacted in pieces (src/output/redact-files.ts): a secret
 * that lies across the place where one piece ends and the next begins must be found, and gone
 * from the copy, as surely as one inside a piece. Each case sweeps the secret across the places a
 * piece may end (a 64 KiB step, a line longer than 8 MiB), without relying on where exactly they are.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { createRedactor } from "../src/output/redact.ts";
import { lookForSecrets, redactFilesIn } from "../src/output/redact-files.ts";
import { seededRandom } from "./helpers/seeded-random.ts";
import { tempDir } from "./output-helpers.ts";

const SECRET = "planted-secret-value-0123";
const TOKEN = `ghp_${"Zq8Xw2Vn4Ml6Kj1Hg3Fd5Sa7Po9Iu0Yt2Re4Wq"}`;
const redactor = createRedactor({ extra: [SECRET] });
/** Where the pass used to cut a line without a line feed, which let a secret across it through. */
const LONG_LINE_CUT = 8 * 1024 * 1024;

/** Whether `text` (line breaks removed), decoded as base64 at any of its four offsets, holds `needle`. */
function decodedHolds(text: string, needle: string): boolean {
  const joined = text.replace(/\r?\n/g, "");
  for (let offset = 0; offset < 4; offset++) {
    if (Buffer.from(joined.slice(offset), "base64").toString("latin1").includes(needle)) return true;
  }
  return false;
}

/** Base64 of `bytes`, wrapped at 76 characters as `base64` prints it. */
function wrapped(bytes: Buffer): string {
  return `${bytes.toString("base64").replace(/.{76}/g, "$&\n")}\n`;
}

/** Writes `content` to a folder of its own; the look's answer, then the folder's redaction and the file after it. */
async function lookAndRedact(content: string | Buffer) {
  const dir = path.join(tempDir(), "tool-output");
  await mkdir(dir);
  const file = path.join(dir, "out.log");
  await writeFile(file, content);
  const seen = await lookForSecrets(file, redactor);
  const changed = await redactFilesIn(dir, redactor);
  return { clean: seen !== undefined, changed, after: await readFile(file, "latin1") };
}

describe("a secret where two pieces of a saved output meet", () => {
  test("in wrapped base64: a token's base64 across the line feed a piece ends at", async () => {
    const noise = randomBytes(60_000);
    // The token's base64 is swept over ~2 KiB of characters around each 64 KiB of the file.
    for (const around of [64 * 1024, 128 * 1024]) {
      for (let at = around - 1200; at < around + 600; at += 23) {
        const shift = Math.floor((at * 3) / 4 / (77 / 76));
        const bytes = Buffer.concat([
          randomBytes(shift),
          Buffer.from(` ${TOKEN} `),
          noise.subarray(0, 200_000 - shift),
        ]);
        const content = wrapped(bytes);
        const { clean, changed, after } = await lookAndRedact(content);
        expect(clean, `token's base64 at ${at}`).toBe(false);
        expect(changed, `token's base64 at ${at}`).toEqual(["out.log"]);
        expect(decodedHolds(after, TOKEN), `token's base64 at ${at}`).toBe(false);
      }
    }
  });

  test("in wrapped base64: a known secret's base64 across the line feed a piece ends at", async () => {
    for (let at = 64 * 1024 - 900; at < 64 * 1024 + 300; at += 17) {
      const shift = Math.floor((at * 3) / 4 / (77 / 76));
      const bytes = Buffer.concat([randomBytes(shift), Buffer.from(SECRET), randomBytes(90_000 - shift)]);
      const { clean, changed, after } = await lookAndRedact(wrapped(bytes));
      expect(clean, `secret's base64 at ${at}`).toBe(false);
      expect(changed, `secret's base64 at ${at}`).toEqual(["out.log"]);
      expect(decodedHolds(after, SECRET), `secret's base64 at ${at}`).toBe(false);
    }
  });

  test("in a line longer than a piece may be, of characters a secret may hold", async () => {
    // Letters only: nothing in the line tells where a secret could not be.
    for (const at of [LONG_LINE_CUT - 20, LONG_LINE_CUT + 64 * 1024 - 10, LONG_LINE_CUT + 64 * 1024 - 3]) {
      const content = `${"x".repeat(at)}${SECRET}${"y".repeat(300)}\nend\n`;
      const { clean, changed, after } = await lookAndRedact(content);
      expect(clean, `secret at ${at}`).toBe(false);
      expect(changed, `secret at ${at}`).toEqual(["out.log"]);
      expect(after, `secret at ${at}`).not.toContain(SECRET);
      // Nothing but the secret is taken out: the pieces' redaction is the whole text's.
      expect(after === redactor.redact(content), `secret at ${at}`).toBe(true);
    }
  });

  test("in a long line of words: the line is cut between two words, and comes out whole", async () => {
    const words = "lorem ipsum dolor sit amet, ".repeat(Math.ceil((LONG_LINE_CUT + 200_000) / 28));
    for (const at of [LONG_LINE_CUT - 5, LONG_LINE_CUT + 64 * 1024 - 7]) {
      const content = `${words.slice(0, at)}${SECRET}${words.slice(at, at + 100_000)}\n`;
      const { clean, after } = await lookAndRedact(content);
      expect(clean, `secret at ${at}`).toBe(false);
      expect(after === redactor.redact(content), `secret at ${at}`).toBe(true);
    }
    const clean = await lookAndRedact(`${words}\n`);
    expect(clean.clean).toBe(true);
    expect(clean.changed).toEqual([]);
  });

  test("a line of base64 longer than a piece may be, a token's base64 anywhere in it", async () => {
    const noise = randomBytes(7_000_000);
    for (const at of [LONG_LINE_CUT - 30, LONG_LINE_CUT + 64 * 1024 - 41]) {
      const shift = Math.floor((at * 3) / 4);
      const line = Buffer.concat([
        noise.subarray(0, shift),
        Buffer.from(` ${TOKEN} `),
        noise.subarray(0, 400_000),
      ]);
      const { clean, changed, after } = await lookAndRedact(`${line.toString("base64")}\n`);
      expect(clean, `token's base64 at ${at}`).toBe(false);
      expect(changed, `token's base64 at ${at}`).toEqual(["out.log"]);
      expect(decodedHolds(after, TOKEN), `token's base64 at ${at}`).toBe(false);
    }
  });

  test("random outputs: the look misses nothing the whole text's redaction finds, and the copy keeps nothing to redact", async () => {
    // Seeded, so that a failure can be run again.
    const next = seededRandom(29);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const bytes = (length: number) => Buffer.from(Array.from({ length }, () => Math.floor(next() * 256)));
    const letters = (length: number) =>
      Array.from({ length }, () =>
        pick([..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"]),
      ).join("");
    const fragments: (() => string)[] = [
      () => `${pick(["ok", "building", "a line of output, with words", "error: x"])}\n`,
      () => letters(Math.floor(next() * 5000)),
      () => wrapped(bytes(Math.floor(next() * 3000))),
      () => wrapped(Buffer.concat([bytes(Math.floor(next() * 900)), Buffer.from(` ${TOKEN} `), bytes(50)])),
      () => wrapped(Buffer.concat([bytes(Math.floor(next() * 900)), Buffer.from(SECRET), bytes(50)])),
      () => bytes(Math.floor(next() * 200)).toString("base64"),
      () => SECRET,
      () => ` ${TOKEN} `,
    ];
    const dir = path.join(tempDir(), "tool-output");
    await mkdir(dir);
    for (let round = 0; round < 60; round++) {
      const size = 64 * 1024 * (1 + Math.floor(next() * 4));
      let content = "";
      // Each fragment after a space or a line feed: glued to the one before, a block's first line
      // is no line of wrapped base64, for the whole text's redaction either.
      while (content.length < size) content += `${pick(fragments)()}${pick([" ", "\n"])}`;
      const file = path.join(dir, `out-${round}.log`);
      await writeFile(file, content, "latin1");
      const whole = redactor.redact(content);
      const clean = (await lookForSecrets(file, redactor)) !== undefined;
      if (whole !== content) expect(clean, `round ${round}: the look missed it`).toBe(false);
      await redactFilesIn(dir, redactor);
      const after = await readFile(file, "latin1");
      expect(redactor.redact(after) === after, `round ${round}: the copy still holds something`).toBe(true);
      expect(after.includes(SECRET) || after.includes(TOKEN), `round ${round}`).toBe(false);
      await rm(file);
    }
  });

  test("a secret of several short lines, across the line feeds pieces end at", async () => {
    // Lines too short to be forms of their own: only the whole, line feeds and all, is one.
    const multiLine = "ab12\ncd34\nef56\ngh78";
    const withIt = createRedactor({ extra: [multiLine] });
    const filler = "a line of output\n".repeat(5000);
    for (let at = 64 * 1024 - 60; at < 64 * 1024 + 20; at += 3) {
      const dir = path.join(tempDir(), "tool-output");
      await mkdir(dir);
      const file = path.join(dir, "out.log");
      await writeFile(file, `${filler.slice(0, at)}\n${multiLine}\n${filler}`);
      expect(await lookForSecrets(file, withIt), `secret at ${at}`).toBeUndefined();
      expect(await redactFilesIn(dir, withIt), `secret at ${at}`).toEqual(["out.log"]);
      expect(await readFile(file, "utf8"), `secret at ${at}`).not.toContain(multiLine);
    }
  });

  test("secrets packed over more than a piece without a break: what holds them goes, the rest stays", async () => {
    const before = "first line, kept\n";
    const after = "\nlast line, kept\n";
    // Nothing between the secrets where a cut could go: every cut has a secret across it.
    const {
      clean,
      changed,
      after: redacted,
    } = await lookAndRedact(`${before}${SECRET.repeat(20_000)}${after}`);
    expect(clean).toBe(false);
    expect(changed).toEqual(["out.log"]);
    expect(redacted).not.toContain(SECRET);
    expect(redacted.startsWith(before)).toBe(true);
    expect(redacted.endsWith(after)).toBe(true);
    // Half a secret is no more left than a whole one.
    expect(redacted).not.toContain(SECRET.slice(0, 12));
    expect(redacted).not.toContain(SECRET.slice(-12));
  });
});
