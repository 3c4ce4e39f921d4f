/**
 * Redacting files the run left in its outputs dir that were written raw (the bash tool's full
 * outputs in `tool-output/`), so that a secret a command printed is no more in them than in
 * events.jsonl. Streamed a line at a time (a line longer than `MAX_LINE_BYTES` is cut there), so a
 * large file costs its size in reading, not in memory.
 *
 * The folder may be writable from inside the sandbox: only regular files with one link are read,
 * opened without following a symlink, and the redacted copy replaces the name (never the file a
 * link points to). Files that held no secret are left untouched.
 */
import { constants, readSync } from "node:fs";
import { type FileHandle, open, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Redactor } from "./redact.ts";

/** Past this many bytes without a line break, a line is redacted in pieces. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

// Under V8's large-object size (128 KiB), so the strings of each piece die young instead of
// piling up in the large-object space until a full collection (1 MiB pieces: +20 MB RSS on 23 MB).
const CHUNK = 64 * 1024;
/** Bytes read at a time (then redacted CHUNK by CHUNK): 1 MiB. */
const READ_BYTES = 1024 * 1024;

/**
 * Redacts every file directly in `dir` in place. Returns the names of the files that changed. Never
 * rejects. Aborting `signal` stops it between two pieces, its files closed (a file being replaced
 * keeps its original).
 */
export async function redactFilesIn(
  dir: string,
  redactor: Pick<Redactor, "redact">,
  options: { signal?: AbortSignal } = {},
): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const changed: string[] = [];
  for (const name of names) {
    if (options.signal?.aborted) break;
    if (name.endsWith(".redacting")) continue;
    const done = await redactFile(path.join(dir, name), redactor, options.signal).catch(() => false);
    if (done) changed.push(name);
  }
  return changed;
}

async function redactFile(
  file: string,
  redactor: Pick<Redactor, "redact">,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const input = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const info = await input.stat();
    if (!info.isFile() || info.nlink !== 1 || info.size === 0) return false;
    // Most saved outputs hold no secret: a first pass only reads, and the copy is written (by a
    // second pass) only for a file that held one, instead of writing every file's copy and then
    // deleting it (a 23 MB output: 23 MB written for nothing).
    if (!(await pass(input, redactor, undefined, signal))) return false;
  } finally {
    await input.close();
  }
  const again = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const temp = `${file}.redacting`;
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

/**
 * Reads `input` from its start a line at a time (cut at MAX_LINE_BYTES) and redacts it, writing
 * the result to `output` when given; without one, stops at the first change. Whether anything changed.
 */
async function pass(
  input: FileHandle,
  redactor: Pick<Redactor, "redact">,
  output: FileHandle | undefined,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  let changed = false;
  let pending = "";
  let position = 0;
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  const decoder = new TextDecoder("utf-8");
  const flush = async (text: string) => {
    const out = redactor.redact(text);
    if (out !== text) changed = true;
    if (output) await output.write(out);
  };
  for (;;) {
    // Stopped: no change is made (a copy half written is thrown away by the caller).
    if (signal?.aborted) return false;
    const bytesRead = readSync(input.fd, buffer, 0, READ_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    for (let at = 0; at < bytesRead; at += CHUNK) {
      pending += decoder.decode(buffer.subarray(at, Math.min(at + CHUNK, bytesRead)), { stream: true });
      const cut = pending.lastIndexOf("\n");
      if (cut !== -1) {
        await flush(pending.slice(0, cut + 1));
        pending = pending.slice(cut + 1);
      } else if (pending.length > MAX_LINE_BYTES) {
        await flush(pending);
        pending = "";
      }
      if (changed && !output) return true;
    }
    // Synchronous reads: a trip through the thread pool per 64 KiB piece was a third of the pass
    // (23 MB: 88 → 59 ms). The event loop gets a turn between two, for a stop signal, git's output.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await flush(pending + decoder.decode());
  return changed;
}
