/**
 * The early look at a saved output (lookForSecrets, as its command ends) and what the finish
 * phase's redaction makes of it: a file still as the look saw it, under the same secrets, is not
 * read again; any change since (appended, rewritten in place at the same size, replaced, its mode
 * changed) or a secret learnt since sends it through the full redaction as before.
 */
import { chmod, mkdir, open, readdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { createRedactor, type Redactor } from "../src/output/redact.ts";
import { lookForSecrets, redactFilesIn } from "../src/output/redact-files.ts";
import { tempDir } from "./output-helpers.ts";

const SECRET = "planted-secret-value-0123";
const LATER = "learnt-later-secret-4567";

/** A redactor that counts the texts it is given: 0 means the file was not read again. */
function counting(redactor: Redactor): {
  redactor: Pick<Redactor, "redact" | "redactLatin1" | "version" | "pieceCuts">;
  calls: () => number;
} {
  let calls = 0;
  return {
    redactor: {
      redact: (text: string) => {
        calls++;
        return redactor.redact(text);
      },
      redactLatin1: (text: string) => redactor.redactLatin1(text),
      pieceCuts: () => redactor.pieceCuts(),
      get version() {
        return redactor.version;
      },
    },
    calls: () => calls,
  };
}

async function savedOutput(content: string): Promise<{ dir: string; file: string }> {
  const dir = path.join(tempDir(), "tool-output");
  await mkdir(dir);
  const file = path.join(dir, "agent-run-bash-call1.log");
  await writeFile(file, content, { mode: 0o600 });
  return { dir, file };
}

const CLEAN = `${"line of output 0123456789\n".repeat(40_000)}the end\n`;

describe("lookForSecrets, then redactFilesIn", () => {
  test("unchanged since a clean look: not read again, left as it is", async () => {
    const base = createRedactor({ extra: [SECRET] });
    const { dir, file } = await savedOutput(CLEAN);
    const seen = await lookForSecrets(file, base);
    expect(seen?.size).toBe(BigInt(CLEAN.length));
    const { redactor, calls } = counting(base);
    expect(await redactFilesIn(dir, redactor, { earlier: new Map([[file, Promise.resolve(seen)]]) })).toEqual(
      [],
    );
    expect(calls()).toBe(0);
    expect(await readFile(file, "utf8")).toBe(CLEAN);
    expect(await readdir(dir)).toEqual(["agent-run-bash-call1.log"]);
  });

  test.for([
    ["a secret appended", async (file: string) => writeFile(file, `late ${SECRET}\n`, { flag: "a" })],
    [
      "rewritten in place, same size",
      async (file: string) => {
        const handle = await open(file, "r+");
        await handle.write(`xx${SECRET}xx`, 1000);
        await handle.close();
      },
    ],
    [
      "replaced by another file",
      async (file: string) => {
        await writeFile(`${file}.new`, CLEAN.replace("the end", `the end ${SECRET}`));
        await rename(`${file}.new`, file);
      },
    ],
  ] as const)("%s after the look: redacted at the end", async ([, change]) => {
    const redactor = createRedactor({ extra: [SECRET] });
    const { dir, file } = await savedOutput(CLEAN);
    const seen = await lookForSecrets(file, redactor);
    expect(seen).toBeDefined();
    await change(file);
    expect(await redactFilesIn(dir, redactor, { earlier: new Map([[file, Promise.resolve(seen)]]) })).toEqual(
      ["agent-run-bash-call1.log"],
    );
    const text = await readFile(file, "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).toContain("***");
  });

  test("a secret learnt after the look: redacted at the end", async () => {
    const redactor = createRedactor({ extra: [SECRET] });
    const { dir, file } = await savedOutput(`${CLEAN}token ${LATER}\n`);
    const seen = await lookForSecrets(file, redactor);
    expect(seen).toBeDefined();
    redactor.add(LATER);
    expect(await redactFilesIn(dir, redactor, { earlier: new Map([[file, Promise.resolve(seen)]]) })).toEqual(
      ["agent-run-bash-call1.log"],
    );
    expect(await readFile(file, "utf8")).not.toContain(LATER);
  });

  test("only the mode changed after the look: read again (any change counts)", async () => {
    const base = createRedactor({ extra: [SECRET] });
    const { dir, file } = await savedOutput(CLEAN);
    const seen = await lookForSecrets(file, base);
    await chmod(file, 0o400);
    const { redactor, calls } = counting(base);
    await redactFilesIn(dir, redactor, { earlier: new Map([[file, Promise.resolve(seen)]]) });
    expect(calls()).toBeGreaterThan(0);
  });

  test("a file holding a secret, or a look stopped midway, gives no verdict", async () => {
    const redactor = createRedactor({ extra: [SECRET] });
    const { file } = await savedOutput(`${CLEAN}key ${SECRET}\n`);
    expect(await lookForSecrets(file, redactor)).toBeUndefined();
    const clean = await savedOutput(CLEAN);
    const stop = new AbortController();
    const looking = lookForSecrets(clean.file, redactor, stop.signal);
    stop.abort();
    expect(await looking).toBeUndefined();
    // The look leaves nothing of its own in the folder (its clock probes are removed).
    expect(await readdir(clean.dir)).toEqual(["agent-run-bash-call1.log"]);
  });
});
