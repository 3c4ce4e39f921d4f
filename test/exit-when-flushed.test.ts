/**
 * The entry points end with `exitWhenFlushed` once their work is done (src/system/exit-now.ts):
 * the process ends with the given code even though something still holds its event loop, and
 * nothing it wrote to stdout and stderr is lost, however slowly the reader reads. (On Linux a
 * pipe's writes are synchronous, so the output would be whole even without the drain wait, which
 * is for platforms where they are not; the live timer is what a natural exit would wait on.)
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { ROOT } from "./helpers/cli.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const IMPORT = `import { exitWhenFlushed } from ${JSON.stringify(path.join(ROOT, "src/system/exit-now.ts"))};`;

/**
 * Writes `lines` (or what `lines` makes of the folder), after an import of exitWhenFlushed, as an
 * entry script in a fresh folder.
 */
async function entryScript(
  lines: string[] | ((dir: string) => string[]),
): Promise<{ dir: string; script: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "exit-now-test-"));
  dirs.push(dir);
  const script = path.join(dir, "entry.ts");
  await writeFile(script, [IMPORT, ...(typeof lines === "function" ? lines(dir) : lines)].join("\n"));
  return { dir, script };
}

test("ends with its code despite a live timer, after 4 MB of output a slow reader takes", {
  timeout: 30_000,
}, async () => {
  const { script } = await entryScript([
    "setInterval(() => {}, 1000);",
    `const line = "x".repeat(1023) + "\\n";`,
    "for (let i = 0; i < 4096; i++) process.stdout.write(line);",
    `process.stderr.write("last words\\n");`,
    "await exitWhenFlushed(3);",
  ]);
  const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A reader that starts late and reads in small bites.
  child.stdout.pause();
  await new Promise((resolve) => setTimeout(resolve, 500));
  let bytes = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
  });
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(code).toBe(3);
  expect(bytes).toBe(4096 * 1024);
  expect(stderr).toBe("last words\n");
});

/** Runs `lines` as an entry script and says how it ended and what its `exit` listeners wrote. */
async function endOf(
  lines: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; heard: string; stderr: string }> {
  const { dir, script } = await entryScript((folder) => [
    `import { appendFileSync } from "node:fs";`,
    "setInterval(() => {}, 1000);",
    `process.on("exit", (code) => appendFileSync(${JSON.stringify(path.join(folder, "heard.txt"))}, \`\${code} \${process.exitCode}\\n\`));`,
    ...lines,
  ]);
  const heard = path.join(dir, "heard.txt");
  const child = spawn(process.execPath, [script], { stdio: ["ignore", "ignore", "pipe"], env });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const { readFile } = await import("node:fs/promises");
  return { code, heard: await readFile(heard, "utf8").catch(() => ""), stderr };
}

// Where Node has process.execve the process ends as `sh -c 'exit N'`, which runs no listener of
// its own: exitWhenFlushed runs them first, once, with the code set, as process.exit does.
test("the exit listeners run once, with the code, and the process ends with it", async () => {
  const ended = await endOf(["await exitWhenFlushed(5);"]);
  expect(ended).toEqual({ code: 5, heard: "5 5\n", stderr: "" });
});

test("without process.execve (Node before 22.15) it ends through process.exit alike", async () => {
  const ended = await endOf(["Reflect.deleteProperty(process, 'execve');", "await exitWhenFlushed(4);"]);
  expect(ended).toEqual({ code: 4, heard: "4 4\n", stderr: "" });
});

test("a code no shell can exit with ends through process.exit", async () => {
  const ended = await endOf(["await exitWhenFlushed(300);"]);
  // The kernel keeps the low 8 bits, as for any exit(300).
  expect(ended).toEqual({ code: 300 & 0xff, heard: "300 300\n", stderr: "" });
});

// The point of the exec: libc's exit handlers (OpenSSL's and Node's frees) do not run. Seen from
// outside as the `sh` of PATH being what ends the process, with the code as its argument.
test.skipIf(typeof process.execve !== "function")(
  "it ends as PATH's sh, which exits with the code",
  async () => {
    const bin = await mkdtemp(path.join(os.tmpdir(), "exit-now-bin-"));
    dirs.push(bin);
    const called = path.join(bin, "called.txt");
    await writeFile(
      path.join(bin, "sh"),
      `#!/bin/sh\nprintf '%s|' "$@" > ${JSON.stringify(called)}\nexec /bin/sh "$@"\n`,
      { mode: 0o755 },
    );
    const ended = await endOf(["await exitWhenFlushed(6);"], {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
    });
    expect(ended).toEqual({ code: 6, heard: "6 6\n", stderr: "" });
    const { readFile } = await import("node:fs/promises");
    expect(await readFile(called, "utf8")).toBe("-c|exit 6|");
  },
);

// A run ended by a stop signal may get another while it ends (GitHub's SIGTERM after its SIGINT,
// a second Ctrl-C). The runner's handlers catch it until the process is gone; a shell it had
// become would die by it instead, and the run's 130 would read as a kill.
test.for([
  [130, false],
  [143, false],
  [0, true],
  [1, true],
] as const)(
  "ending with %i under a stream of further SIGTERMs (a stop signal noted: %s), it still ends with that code",
  async ([exitCode, noted]) => {
    const { script } = await entryScript([
      `import { noteStopSignal } from ${JSON.stringify(path.join(ROOT, "src/system/exit-now.ts"))};`,
      `process.on("SIGTERM", () => {});`,
      `process.on("SIGINT", () => {});`,
      // A run whose work was done when the signal came ends with its own code, 0 or 1.
      ...(noted ? ["noteStopSignal();"] : []),
      `process.stdout.write("ending\\n");`,
      `await new Promise((resolve) => setTimeout(resolve, 50));`,
      `await exitWhenFlushed(${exitCode});`,
    ]);
    const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "ignore"] });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    let gone = false;
    void ended.then(() => {
      gone = true;
    });
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    // One a millisecond, which the old code lost to every time (20 of 20). Not back to back: under
    // ~350,000 signals a second, V8's GC froze now and then in abseil's calibration of the CPU's
    // clock, a sleep that starts over when a signal cuts it (3 in 60 runs; once in CI).
    while (!gone) {
      try {
        child.kill("SIGTERM");
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(await ended).toEqual({ code: exitCode, signal: null });
  },
);
