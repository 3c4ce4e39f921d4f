/**
 * The look for secrets in a worker thread (src/output/secret-look.ts) and the run's use of it
 * (src/run/saved-output-looks.ts): the worker's verdict is the one lookForSecrets gives on the
 * run's own thread, under the secrets the run holds when it asks (a secret learnt later makes the
 * verdict stale, as it does for a look on the run's thread); a big output is looked through there,
 * not on the run's thread; a stop leaves no look unanswered. From the sources (the worker loads
 * secret-look-worker.ts); the bundle's worker is tested through the built CLI
 * (cli-saved-output-redacted).
 */
import { execFile } from "node:child_process";
import { openSync, readdirSync, readlinkSync, statSync, writeSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createRedactor, type Redactor } from "../src/output/redact.ts";
import { lookForSecrets } from "../src/output/redact-files.ts";
import {
  createSecretLookWorker,
  WORKER_LOOK_MIN_BYTES,
  WORKER_WARM_BYTES,
} from "../src/output/secret-look.ts";
import { createSavedOutputLooks } from "../src/run/saved-output-looks.ts";
import {
  createOutputGuard,
  OUTPUT_FIRST_CHECK_MS,
  OUTPUT_GUARD_INTERVAL_MS,
} from "../src/tools/output-guard.ts";
import { tempDir } from "./output-helpers.ts";

const SECRET = "worker-look-secret-71c0a2";
const LATER = "worker-look-later-93be14";

async function outputsDir(): Promise<string> {
  const dir = path.join(tempDir(), "tool-output");
  await mkdir(dir);
  return dir;
}

async function saved(dir: string, name: string, content: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, content, { mode: 0o600 });
  return file;
}

/** `bytes` or a little more of lines of digits, then `tail`. */
/** Whether this process (any of its threads) has `file` open. */
function openHere(file: string): boolean {
  return readdirSync("/proc/self/fd").some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  });
}

function output(bytes: number, tail = "the end\n"): string {
  const line = "0123456789 line of output\n";
  return `${line.repeat(Math.ceil(bytes / line.length))}${tail}`;
}

/** Counts the texts the run's thread redacts through `redactor` (the worker builds its own). */
function countCalls(redactor: Redactor): () => number {
  let calls = 0;
  const redact = redactor.redact;
  redactor.redact = (text, facts) => {
    calls++;
    return redact(text, facts);
  };
  return () => calls;
}

describe("the look in a worker", () => {
  test("a clean file: the verdict the run's thread gives, under the run's secrets version", async () => {
    const redactor = createRedactor({ extra: [SECRET] });
    const dir = await outputsDir();
    const file = await saved(dir, "clean.log", output(2 * 1024 * 1024));
    const worker = createSecretLookWorker(redactor);
    try {
      const seen = await worker.look(file);
      expect(seen).toEqual(await lookForSecrets(file, redactor));
      expect(seen?.version).toBe(redactor.version);
    } finally {
      worker.stop();
    }
  });

  test("a secret, and a secret learnt after the worker started: no verdict", async () => {
    const redactor = createRedactor({ extra: [SECRET] });
    const dir = await outputsDir();
    const held = await saved(dir, "held.log", output(100_000, `key ${SECRET}\n`));
    const later = await saved(dir, "later.log", output(100_000, `token ${LATER}\n`));
    const worker = createSecretLookWorker(redactor);
    try {
      expect(await worker.look(held)).toBeUndefined();
      // Clean under the secrets the worker was first given; not once the run learns the later one.
      expect(await worker.look(later)).toBeDefined();
      redactor.add(LATER);
      expect(await worker.look(later)).toBeUndefined();
    } finally {
      worker.stop();
    }
  });

  test("stopped: a look in flight answers undefined, and no look is taken after", async () => {
    const redactor = createRedactor({ extra: [SECRET] });
    const dir = await outputsDir();
    const file = await saved(dir, "big.log", output(16 * 1024 * 1024));
    const worker = createSecretLookWorker(redactor);
    const looking = worker.look(file);
    expect(looking).toBeDefined();
    worker.stop();
    expect(await looking).toBeUndefined();
    expect(worker.look(file)).toBeUndefined();
  });

  test("a stop resolves once the worker has closed the file it was reading (a full disk frees it next)", async () => {
    const redactor = createRedactor({ extra: [SECRET] });
    const dir = await outputsDir();
    const file = await saved(dir, "held.log", output(48 * 1024 * 1024));
    const worker = createSecretLookWorker(redactor);
    const looking = worker.look(file);
    const opened = Date.now();
    while (!openHere(file)) {
      expect(Date.now() - opened).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await worker.stop();
    expect(openHere(file)).toBe(false);
    expect(await looking).toBeUndefined();
  });

  test("a process with nothing else to do waits for the stop it awaits (no exit 13, its outputs unwritten)", async () => {
    const dir = await outputsDir();
    const file = await saved(dir, "awaited.log", output(48 * 1024 * 1024));
    const script = path.join(dir, "..", "await-stop.mjs");
    const source = (relative: string) => JSON.stringify(fileURLToPath(new URL(relative, import.meta.url)));
    await writeFile(
      script,
      `import { readdirSync, readlinkSync } from "node:fs";
import { createRedactor } from ${source("../src/output/redact.ts")};
import { createSecretLookWorker } from ${source("../src/output/secret-look.ts")};
const file = process.argv[2];
const open = () => readdirSync("/proc/self/fd").some((fd) => { try { return readlinkSync("/proc/self/fd/" + fd) === file; } catch { return false; } });
const worker = createSecretLookWorker(createRedactor({ extra: [${JSON.stringify(SECRET)}] }));
void worker.look(file);
while (!open()) await new Promise((resolve) => setTimeout(resolve, 1));
await worker.stop();
console.log(open() ? "still open" : "closed");
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script, file], { timeout: 30_000 });
    expect(stdout.trim()).toBe("closed");
  });

  test("a redactor it cannot rebuild (not createRedactor's): no worker, the run's thread looks", async () => {
    const base = createRedactor({ extra: [SECRET] });
    const wrapped = { redact: base.redact, version: base.version };
    const worker = createSecretLookWorker(wrapped);
    expect(worker.warm()).toBe(false);
    expect(worker.look("/nonexistent")).toBeUndefined();
  });
});

/** The run's looks over a fresh tool-output folder, and how many texts the run's thread redacted. */
async function runLooks() {
  const redactor = createRedactor({ extra: [SECRET] });
  const calls = countCalls(redactor);
  const dir = await outputsDir();
  return { dir, looks: createSavedOutputLooks(dir, redactor), calls };
}

describe("the run's saved-output looks", () => {
  test("a big output is looked through in the worker, a small one on the run's thread", async () => {
    const { dir, looks, calls } = await runLooks();
    try {
      const big = await saved(dir, "big.log", output(WORKER_LOOK_MIN_BYTES));
      looks.start(big);
      expect(await looks.found.get(big)).toBeDefined();
      expect(calls()).toBe(0);
      const small = await saved(dir, "small.log", output(WORKER_WARM_BYTES / 2));
      looks.start(small);
      expect(await looks.found.get(small)).toBeDefined();
      expect(calls()).toBeGreaterThan(0);
    } finally {
      looks.stop();
    }
  });

  test("an output seen growing past WORKER_WARM_BYTES sends the next output of that size to the worker", async () => {
    const { dir, looks, calls } = await runLooks();
    try {
      looks.growing(WORKER_WARM_BYTES - 1);
      const before = await saved(dir, "before.log", output(WORKER_WARM_BYTES));
      looks.start(before);
      await looks.found.get(before);
      expect(calls()).toBeGreaterThan(0);
      const onThread = calls();
      looks.growing(WORKER_WARM_BYTES);
      const after = await saved(dir, "after.log", output(WORKER_WARM_BYTES, `key ${SECRET}\n`));
      looks.start(after);
      expect(await looks.found.get(after)).toBeUndefined();
      expect(calls()).toBe(onThread);
    } finally {
      looks.stop();
    }
  });
});

/**
 * A guard watching a saved output of `content`, under fake timers, with the sizes its checks told;
 * `intervalMs` far off leaves only the first checks to report. `end` lets go of all of it.
 */
async function watchedOutput(name: string, content: string, intervalMs?: number) {
  vi.useFakeTimers();
  const file = await saved(await outputsDir(), name, content);
  const sizes: number[] = [];
  const guard = createOutputGuard({
    commandCapBytes: 64 * 1024 * 1024,
    totalCapBytes: 64 * 1024 * 1024,
    ...(intervalMs !== undefined && { intervalMs }),
    onSize: (bytes) => sizes.push(bytes),
  });
  const fd = openSync(file, "a");
  const watched = guard.watch({ fd, path: file }, () => {});
  return {
    file,
    fd,
    sizes,
    end() {
      watched.end(true);
      guard.dispose();
      vi.useRealTimers();
    },
  };
}

describe("the output guard's first check", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test("a live file's size is told every 10 ms at first, before the interval's first tick", async () => {
    const { file, fd, sizes, end } = await watchedOutput("live.log", output(3 * 1024 * 1024));
    await vi.advanceTimersByTimeAsync(OUTPUT_FIRST_CHECK_MS);
    expect(sizes).toEqual([statSync(file).size]);
    // Grown after the first check: seen at the next one, still before the interval's first tick.
    writeSync(fd, "x".repeat(1024 * 1024));
    await vi.advanceTimersByTimeAsync(OUTPUT_FIRST_CHECK_MS);
    expect(sizes.at(-1)).toBe(statSync(file).size);
    expect(OUTPUT_FIRST_CHECK_MS * 2).toBeLessThan(OUTPUT_GUARD_INTERVAL_MS);
    end();
  });

  test("the first checks count from the file's first byte: a command that waited for its sandbox still gets them", async () => {
    const { fd, sizes, end } = await watchedOutput("late.log", "", 60_000);
    // The session takes 60 ms to start: six checks of an empty file.
    await vi.advanceTimersByTimeAsync(6 * OUTPUT_FIRST_CHECK_MS);
    expect(sizes).toEqual([0, 0, 0, 0, 0, 0]);
    writeSync(fd, "x".repeat(2 * 1024 * 1024));
    await vi.advanceTimersByTimeAsync(OUTPUT_FIRST_CHECK_MS);
    expect(sizes.at(-1)).toBe(2 * 1024 * 1024);
    // Four checks that saw bytes, then the interval alone.
    await vi.advanceTimersByTimeAsync(3 * OUTPUT_FIRST_CHECK_MS);
    expect(sizes).toHaveLength(10);
    writeSync(fd, "x".repeat(1024));
    await vi.advanceTimersByTimeAsync(5 * OUTPUT_FIRST_CHECK_MS);
    expect(sizes).toHaveLength(10);
    end();
  });

  test("a file that stays empty is checked early for a second at most", async () => {
    const { sizes, end } = await watchedOutput("quiet.log", "", 60_000);
    await vi.advanceTimersByTimeAsync(3000);
    expect(sizes).toHaveLength(1000 / OUTPUT_FIRST_CHECK_MS);
    end();
  });
});
