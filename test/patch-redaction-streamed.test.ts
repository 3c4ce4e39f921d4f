import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import type { ComputedPatch } from "../src/output/diff.ts";
import { createPatchRedactor } from "../src/output/patch-redactor.ts";
import { createRedactor } from "../src/output/redact.ts";
import { writePatch } from "../src/output/write-patch.ts";
import { tempDir } from "./output-helpers.ts";

const SECRET = "sk-ant-api03-Zq7XbR2mN9kLpV4wT8yC";
const redactor = createRedactor({ extra: [SECRET, "p\u00e4ssw\u00f6rd-\u00fc\u00df-42"] });

/** Feeds `text` to a patch redactor cut into pieces of `size` characters. */
function streamed(text: string, size: number): { out: string; changed: boolean } {
  const stream = createPatchRedactor(redactor);
  let out = "";
  for (let i = 0; i < text.length; i += size) out += stream.write(text.slice(i, i + size));
  out += stream.end();
  return { out, changed: stream.changed };
}

const TEXT_PATCH = [
  "diff --git a/config.ts b/config.ts",
  "index 1111111..2222222 100644",
  "--- a/config.ts",
  "+++ b/config.ts",
  "@@ -1 +1,2 @@",
  "-export const key = '';",
  `+export const key = '${SECRET}';`,
  `+// ${Buffer.from("p\u00e4ssw\u00f6rd-\u00fc\u00df-42").toString("latin1")} and a latin1 byte: \xe9`,
  "",
].join("\n");

test.for([1, 3, 7, 64, 100_000])("a text patch cut every %i characters is redacted as a whole", (size) => {
  const { out, changed } = streamed(TEXT_PATCH, size);
  expect(changed).toBe(true);
  expect(out).not.toContain(SECRET);
  expect(out).toContain("+export const key = '***';");
  // The UTF-8 secret is found as its bytes; the lone latin1 byte is kept as it is.
  expect(out).toContain("+// *** and a latin1 byte: \xe9\n");
});

test("the payload of a binary section is never touched, even where it looks like a token", () => {
  // Base85 of random bytes holds `sk-` and 20 key characters now and then (about once in 600 MB);
  // replacing it made the patch corrupt and `git apply` skipped the file.
  const payload = "zcmV+w0s0i%sk-Ab3dEf5gHi7jKl9mNo1pQr2sT%b?`{d\n";
  const patch = [
    "diff --git a/big.bin b/big.bin",
    "new file mode 100644",
    "index 0000000000..1234567890",
    "GIT binary patch",
    "literal 25",
    payload.trimEnd(),
    "",
    "literal 0",
    "HcmV?d00001",
    "",
    TEXT_PATCH,
  ].join("\n");
  for (const size of [5, 1000]) {
    const { out } = streamed(patch, size);
    expect(out).toContain(payload);
    expect(out).toContain("+export const key = '***';");
  }
});

test("a real binary patch comes out of writePatch byte for byte", async () => {
  // A tree with one binary file, and its patch from git.
  const repo = tempDir();
  execFileSync("sh", ["-c", "git init -q && head -c 3000 /dev/urandom > blob.bin && git add -A"], {
    cwd: repo,
  });
  const raw = execFileSync("git", ["diff", "--cached", "--binary"], { cwd: repo, encoding: "latin1" });
  expect(raw).toContain("GIT binary patch");
  const file = path.join(tempDir(), "git.diff");
  fs.writeFileSync(file, raw, "latin1");
  const patch: ComputedPatch = {
    from: "a",
    to: "b",
    file,
    bytes: raw.length,
    files: [{ path: "blob.bin", status: "added", additions: 0, deletions: 0, binary: false }],
    sections: [1],
  };
  const dest = path.join(tempDir(), "patch.diff");
  const written = await writePatch(patch, dest, { redactor, headChars: 65_536 });
  expect(written.hadSecret).toBe(false);
  expect(fs.readFileSync(dest, "latin1")).toBe(raw);
  expect(patch.files[0]?.binary).toBe(true);
});

test("a secret across the place a line longer than a piece is cut: redacted all the same", () => {
  // A minified file added whole: one line of letters (nothing a cut could go after) past 8 MiB.
  const header = "diff --git a/min.js b/min.js\n--- /dev/null\n+++ b/min.js\n@@ -0,0 +1 @@\n";
  // Written 64 KiB at a time: the secret across each of the writes' ends around 8 MiB of the line.
  const ends = [127, 128, 129, 130].map((k) => k * 64 * 1024 - header.length);
  for (const at of ends.flatMap((end) => [end - 20, end - 3])) {
    const line = `+${"x".repeat(at - 1)}${SECRET}${"y".repeat(200_000)}\n`;
    const patch = `${header}${line}`;
    const { out, changed } = streamed(patch, 64 * 1024);
    expect(changed, `secret at ${at}`).toBe(true);
    expect(out.includes(SECRET), `secret at ${at}`).toBe(false);
    expect(out === redactor.redactLatin1(redactor.redact(patch)), `secret at ${at}`).toBe(true);
  }
});

test("a token's base64 in wrapped lines across the line end a piece ends at: redacted", () => {
  // Lines of 64 characters in the patch (63 of the file's and the `+`) are a block of wrapped base64.
  const token = `ghp_${"Zq8Xw2Vn4Ml6Kj1Hg3Fd5Sa7Po9Iu0Yt2Re4Wq"}`;
  for (let shift = 0; shift < 90; shift += 3) {
    const encoded = Buffer.concat([
      Buffer.alloc(shift, 0x41),
      Buffer.from(` ${token} `),
      Buffer.alloc(300, 0x42),
    ])
      .toString("base64")
      .slice(0, 63 * 8);
    const lines = encoded.match(/.{63}/g) ?? [];
    const patch = `diff --git a/b.txt b/b.txt\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1,8 @@\n${lines.map((l) => `+${l}\n`).join("")}`;
    // Cut into writes that end right after the fourth line of base64.
    const split = patch.indexOf(lines[4] ?? "") - 1;
    const stream = createPatchRedactor(redactor);
    const out = stream.write(patch.slice(0, split)) + stream.write(patch.slice(split)) + stream.end();
    const whole = redactor.redactLatin1(redactor.redact(patch));
    expect(out === whole, `shift ${shift}`).toBe(true);
  }
});

test("a piece ends at its last line end however far back: a long line does not hold the rest back", () => {
  const stream = createPatchRedactor(redactor);
  const line = `+${"minified();".repeat(10_000)}\n`;
  // The line end is 20 KB before the write's end: still where the piece ends.
  expect(stream.write(`${line}+${"a".repeat(20_000)}`)).toBe(line);
  expect(stream.end()).toBe(`+${"a".repeat(20_000)}`);
});
