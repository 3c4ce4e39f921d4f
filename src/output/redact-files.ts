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
import { constants } from "node:fs";
import { open, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Redactor } from "./redact.ts";

/** Past this many bytes without a line break, a line is redacted in pieces. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

const CHUNK = 1024 * 1024;

/** Redacts every file directly in `dir` in place. Returns the names of the files that changed. Never rejects. */
export async function redactFilesIn(dir: string, redactor: Pick<Redactor, "redact">): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const changed: string[] = [];
  for (const name of names) {
    if (name.endsWith(".redacting")) continue;
    const done = await redactFile(path.join(dir, name), redactor).catch(() => false);
    if (done) changed.push(name);
  }
  return changed;
}

async function redactFile(file: string, redactor: Pick<Redactor, "redact">): Promise<boolean> {
  const input = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const temp = `${file}.redacting`;
  let changed = false;
  try {
    const info = await input.stat();
    if (!info.isFile() || info.nlink !== 1 || info.size === 0) return false;
    const output = await open(temp, "wx", 0o600);
    try {
      let pending = "";
      const buffer = Buffer.alloc(CHUNK);
      const decoder = new TextDecoder("utf-8");
      const flush = async (text: string) => {
        const out = redactor.redact(text);
        if (out !== text) changed = true;
        await output.write(out);
      };
      for (;;) {
        const { bytesRead } = await input.read(buffer, 0, CHUNK, null);
        if (bytesRead === 0) break;
        pending += decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
        const cut = pending.lastIndexOf("\n");
        if (cut !== -1) {
          await flush(pending.slice(0, cut + 1));
          pending = pending.slice(cut + 1);
        } else if (pending.length > MAX_LINE_BYTES) {
          await flush(pending);
          pending = "";
        }
      }
      await flush(pending + decoder.decode());
    } finally {
      await output.close();
    }
  } catch (error) {
    changed = false;
    throw error;
  } finally {
    await input.close();
    if (!changed) await rm(temp, { force: true });
  }
  if (changed) await rename(temp, file);
  return changed;
}
