/**
 * Redacting files the run left in its outputs dir that were written raw (the bash tool's full
 * outputs in `tool-output/`), so that a secret a command printed is no more in them than in
 * events.jsonl. Streamed a line at a time (a line longer than `MAX_LINE_BYTES` is cut there), so a
 * large file costs its size in reading, not in memory.
 *
 * The folder may be writable from inside the sandbox: only regular files with one link are read,
 * opened without following a symlink, and the redacted copy replaces the name (never the file a
 * link points to). Files that held no secret are left untouched; one that an early look
 * (`lookForSecrets`, as its command ended) found clean and that has not changed since is not read
 * again.
 */
import { constants, readSync } from "node:fs";
import { type FileHandle, open, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { clockAfter } from "./fs-clock.ts";
import type { Redactor } from "./redact.ts";
import { hasBase64RunIn } from "./token-shapes.ts";

type FileRedactor = Pick<Redactor, "redact" | "version">;

const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** The suffix of this module's own files in the folder (the copies being written, clock probes): never redacted. */
const OWN_SUFFIX = ".redacting";

/** Past this many bytes without a line break, a line is redacted in pieces. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

// Under V8's large-object size (128 KiB), so the strings of each piece die young instead of
// piling up in the large-object space until a full collection (1 MiB pieces: +20 MB RSS on 23 MB).
const CHUNK = 64 * 1024;
/** Bytes read at a time (then redacted CHUNK by CHUNK): 1 MiB. */
const READ_BYTES = 1024 * 1024;

/** What an early look saw of a file that held no secret: which file, how long, changed last when, under which secrets. */
export interface CleanAsOf {
  dev: bigint;
  ino: bigint;
  size: bigint;
  ctimeNs: bigint;
  version: number;
}

/**
 * Redacts every file directly in `dir` in place. Returns the names of the files that changed. Never
 * rejects. Aborting `signal` stops it between two pieces, its files closed (a file being replaced
 * keeps its original). `earlier`: early looks by path (lookForSecrets); a file still as its look
 * saw it, under the same secrets, is not read again.
 */
export async function redactFilesIn(
  dir: string,
  redactor: FileRedactor,
  options: { signal?: AbortSignal; earlier?: ReadonlyMap<string, Promise<CleanAsOf | undefined>> } = {},
): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const changed: string[] = [];
  for (const name of names) {
    if (options.signal?.aborted) break;
    if (name.endsWith(OWN_SUFFIX)) continue;
    const file = path.join(dir, name);
    const done = await redactFile(file, redactor, options.signal, options.earlier?.get(file)).catch(
      () => false,
    );
    if (done) changed.push(name);
  }
  return changed;
}

/**
 * Looks through a saved output for secrets while the run goes on (its command has ended), so that
 * the finish phase need not read it again. Resolves with what it saw when the file held none;
 * undefined when it held one (the finish phase redacts it), changed during the look, or could not
 * be read. Never rejects.
 *
 * "Not changed since" is told by the inode's ctime: every write, truncation, change of mode or of
 * links moves it, and no process can set it back. The look reads only once the file system's clock
 * has passed the file's last change, so that a write after it cannot leave the ctime as it was.
 */
export async function lookForSecrets(
  file: string,
  redactor: FileRedactor,
  signal?: AbortSignal,
): Promise<CleanAsOf | undefined> {
  try {
    const version = redactor.version;
    const input = await open(file, READ);
    try {
      const before = await input.stat({ bigint: true });
      if (!before.isFile() || before.nlink !== 1n) return undefined;
      if ((await clockAfter(path.dirname(file), before.ctimeNs, OWN_SUFFIX)) === undefined) return undefined;
      const held = await pass(input, redactor, undefined, signal);
      // A stopped pass says "nothing changed" without having read everything.
      if (held || signal?.aborted) return undefined;
      const after = await input.stat({ bigint: true });
      if (after.ctimeNs !== before.ctimeNs || after.size !== before.size) return undefined;
      return { dev: before.dev, ino: before.ino, size: before.size, ctimeNs: before.ctimeNs, version };
    } finally {
      await input.close();
    }
  } catch {
    return undefined;
  }
}

async function redactFile(
  file: string,
  redactor: FileRedactor,
  signal: AbortSignal | undefined,
  earlier: Promise<CleanAsOf | undefined> | undefined,
): Promise<boolean> {
  const input = await open(file, READ);
  try {
    const info = await input.stat({ bigint: true });
    if (!info.isFile() || info.nlink !== 1n || info.size === 0n) return false;
    const seen = await earlier;
    if (seen && unchangedSince(seen, info, redactor.version)) return false;
    // Most saved outputs hold no secret: a first pass only reads, and the copy is written (by a
    // second pass) only for a file that held one, instead of writing every file's copy and then
    // deleting it (a 23 MB output: 23 MB written for nothing).
    if (!(await pass(input, redactor, undefined, signal))) return false;
  } finally {
    await input.close();
  }
  const again = await open(file, READ);
  const temp = `${file}${OWN_SUFFIX}`;
  let changed = false;
  try {
    const info = await again.stat();
    if (!info.isFile() || info.nlink !== 1) return false;
    const output = await open(temp, "wx", 0o600);
    try {
      changed = await pass(again, redactor, output, signal);
    } finally {
      await output.close();
    }
  } catch (error) {
    changed = false;
    throw error;
  } finally {
    await again.close();
    if (!changed) await rm(temp, { force: true });
  }
  if (changed) await rename(temp, file);
  return changed;
}

function unchangedSince(
  seen: CleanAsOf,
  now: { dev: bigint; ino: bigint; size: bigint; ctimeNs: bigint },
  version: number,
): boolean {
  return (
    seen.version === version &&
    seen.dev === now.dev &&
    seen.ino === now.ino &&
    seen.size === now.size &&
    seen.ctimeNs === now.ctimeNs
  );
}

/**
 * Reads `input` from its start a line at a time (cut at MAX_LINE_BYTES) and redacts it, writing
 * the result to `output` when given; without one, stops at the first change. Whether anything changed.
 *
 * Pieces of up to CHUNK bytes are cut after their last line feed in the bytes, and each is decoded
 * on its own: a flat string, where text carried over from the piece before and cut again (what a
 * running decode gives) made every character read a walk through the string's parts. Whether a
 * piece holds a run of base64 is asked of its bytes (token-shapes.ts hasBase64RunIn), faster than
 * of its text, and told to `redact`.
 */
async function pass(
  input: FileHandle,
  redactor: FileRedactor,
  output: FileHandle | undefined,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  let changed = false;
  let position = 0;
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  // A line feed ends a UTF-8 character, so pieces cut after one decode alone; the running decode
  // matters only where a line longer than MAX_LINE_BYTES is cut.
  const decoder = new TextDecoder("utf-8");
  // The start of a line longer than a piece, copied (the buffer is read into again) until it ends.
  const long: Uint8Array[] = [];
  let longBytes = 0;
  const flush = async (bytes: Uint8Array, last = false) => {
    const text = decoder.decode(bytes, { stream: !last });
    const out = redactor.redact(text, { base64Runs: hasBase64RunIn(bytes), once: true });
    if (out !== text) changed = true;
    if (output) await output.write(out);
  };
  const flushLong = async (tail?: Uint8Array) => {
    // The tail is copied by the concat, before the buffer is read into again.
    if (tail) long.push(tail);
    const bytes = Buffer.concat(long);
    long.length = 0;
    longBytes = 0;
    await flush(bytes);
  };
  for (;;) {
    // Stopped: no change is made (a copy half written is thrown away by the caller).
    if (signal?.aborted) return false;
    const bytesRead = readSync(input.fd, buffer, 0, READ_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let start = 0;
    while (start < bytesRead) {
      const end = Math.min(start + CHUNK, bytesRead);
      const lineFeed = buffer.lastIndexOf(10, end - 1);
      if (lineFeed < start) {
        long.push(Buffer.from(buffer.subarray(start, end)));
        longBytes += end - start;
        if (longBytes > MAX_LINE_BYTES) await flushLong();
      } else if (long.length > 0) {
        await flushLong(buffer.subarray(start, lineFeed + 1));
      } else {
        await flush(buffer.subarray(start, lineFeed + 1));
      }
      start = lineFeed < start ? end : lineFeed + 1;
      if (changed && !output) return true;
    }
    // Synchronous reads: a trip through the thread pool per 64 KiB piece was a third of the pass
    // (23 MB: 88 → 59 ms). The event loop gets a turn between two, for a stop signal, git's output.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await flush(Buffer.concat(long), true);
  return changed;
}
