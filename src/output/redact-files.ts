/**
 * Redacting files the run left in its outputs dir that were written raw (the bash tool's full
 * outputs in `tool-output/`), so that a secret a command printed is no more in them than in
 * events.jsonl. Streamed in pieces cut where no secret can lie across the cut, so a large file
 * costs its size in reading, not in memory.
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
import { REDACTED, type Redactor } from "./redact.ts";
import { blockMayGoOnPast, hasBase64RunIn } from "./token-shapes.ts";

type FileRedactor = Pick<Redactor, "redact" | "redactLatin1" | "version" | "pieceCuts">;

const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** The suffix of this module's own files in the folder (the copies being written, clock probes): never redacted. */
const OWN_SUFFIX = ".redacting";

// Under V8's large-object size (128 KiB), so the strings of each piece die young instead of
// piling up in the large-object space until a full collection (1 MiB pieces: +20 MB RSS on 23 MB).
const CHUNK = 64 * 1024;
/** Bytes read at a time (then redacted CHUNK by CHUNK): 1 MiB. */
const READ_BYTES = 1024 * 1024;
/** How far back from CHUNK a piece's end is looked for where no match can lie across it: 1 KiB. */
const SAFE_SEARCH = 1024;
/** Cuts `reach` apart a redaction tries past CHUNK before it drops what holds no cut: 64. */
const CUT_TRIES = 64;

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
 * Reads `input` from its start in pieces and redacts each, writing the result to `output` when
 * given; without one, stops at the first change. Whether anything changed.
 *
 * A piece is about CHUNK bytes, cut where no match of `redact` can lie across the cut (PieceCuts):
 * after a character no match holds, or after a line feed no match goes on past, looked for in the
 * piece's last SAFE_SEARCH bytes. Where there is none (wrapped base64 through and through, a long
 * line of letters), the text within `reach` of the cut is redacted first: when that changes
 * nothing, no match lies across it. When it does, a look has found what it looks for; a redaction
 * moves the cut on, `reach` at a time, and after CUT_TRIES replaces the bytes from the last such
 * place before it to the next by one `***` (only a text packed with secrets over ~100 KiB without
 * a break gets there). Cutting anywhere else would leave a secret across the cut, half in each
 * piece, found in neither.
 *
 * Each piece is read as latin1, a character per byte, and redacted with `redact` (known secrets in
 * ASCII, token shapes, base64: all ASCII, found in the bytes as in their UTF-8 text) and
 * `redactLatin1` (the others, as their UTF-8 bytes), as a patch is (patch-redactor.ts): a copy
 * keeps every byte that is not replaced, a binary output's too, and the decoding costs a tenth of
 * UTF-8's on bytes that are not UTF-8 (23 MB of random bytes: ~390 ms of a ~420 ms look). Each
 * piece is a flat string, where text carried over from the piece before and cut again made every
 * character read a walk through the string's parts. Whether a piece holds a run of base64 is asked
 * of its bytes (token-shapes.ts hasBase64RunIn), faster than of its text, and told to `redact`.
 */
async function pass(
  input: FileHandle,
  redactor: FileRedactor,
  output: FileHandle | undefined,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const { separators, lineFeeds, reach } = redactor.pieceCuts();
  let changed = false;
  // The bytes read and not yet redacted are buffer[head, tail); `base` is the file offset of buffer[0].
  let buffer = Buffer.allocUnsafe(READ_BYTES + CHUNK + 4 * reach);
  let head = 0;
  let tail = 0;
  let base = 0;
  let eof = false;

  /** Reads until `want` bytes past `head` are in, or the file has ended; false when stopped. */
  const readAhead = async (want: number): Promise<boolean> => {
    while (!eof && tail - head < want) {
      if (signal?.aborted) return false;
      if (head > 0) {
        buffer.copyWithin(0, head, tail);
        base += head;
        tail -= head;
        head = 0;
      }
      if (buffer.length - tail < READ_BYTES) {
        const bigger = Buffer.allocUnsafe(tail + READ_BYTES);
        buffer.copy(bigger, 0, 0, tail);
        buffer = bigger;
      }
      // Synchronous reads: a trip through the thread pool per 64 KiB piece was a third of the
      // pass (23 MB: 88 → 59 ms). The event loop gets a turn after each, for a stop signal, git's output.
      const bytesRead = readSync(input.fd, buffer, tail, READ_BYTES, base + tail);
      if (bytesRead === 0) eof = true;
      tail += bytesRead;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return !signal?.aborted;
  };

  /**
   * The latest (or the `earliest`) cut in (head + from, head + to] that no match lies across, as
   * bytes past `head`; -1 when there is none.
   */
  const safeCut = (from: number, to: number, earliest = false): number => {
    const [first, last, step] = earliest ? [head + from, head + to - 1, 1] : [head + to - 1, head + from, -1];
    for (let i = first; step * (last - i) >= 0; i += step) {
      const byte = buffer[i]!;
      if (byte < 128 && separators[byte] === 1) return i + 1 - head;
      if (byte === 10 && lineFeeds && !blockMayGoOnPast(buffer, i, base === 0)) return i + 1 - head;
    }
    return -1;
  };

  /**
   * Whether no match lies across a cut `at` bytes past `head`: the bytes within `reach` of it (none
   * before `head`, where the last cut was one) hold nothing `redact` replaces.
   */
  const clearAround = (at: number): boolean => {
    const from = head + Math.max(0, at - reach);
    const text = buffer.toString("latin1", from, Math.min(tail, head + at + reach));
    return redacted(text, from) === text;
  };

  /** `text`, the latin1 of the bytes from buffer[at], redacted. */
  const redacted = (text: string, at: number): string => {
    const runs = hasBase64RunIn(buffer.subarray(at, at + text.length));
    return redactor.redactLatin1(redactor.redact(text, { base64Runs: runs, once: true }));
  };

  /**
   * Where the piece from `head` ends, as bytes past it: a safe cut near CHUNK, else the first cut
   * from CHUNK on, `reach` apart, with nothing across it. HELD when a look has found something
   * around one; DROP when a redaction found no such cut; STOPPED when stopped.
   */
  const pieceEnd = async (): Promise<number> => {
    const safe = safeCut(CHUNK - SAFE_SEARCH, CHUNK);
    if (safe !== -1) return safe;
    // After a line feed where there is one, as pieces ended before their cuts were checked: the
    // next piece then starts with a whole line, so a block of wrapped base64 starts with it.
    const lineEnd = buffer.lastIndexOf(10, head + CHUNK - 1);
    let at = lineEnd >= head + CHUNK - SAFE_SEARCH ? lineEnd + 1 - head : CHUNK;
    for (let tries = 0; tries < CUT_TRIES; tries++) {
      if (clearAround(at)) return at;
      if (!output) return HELD;
      const next = at + reach;
      if (!(await readAhead(next + reach))) return STOPPED;
      if (next >= tail - head) return tail - head;
      const between = safeCut(at, next);
      if (between !== -1) return between;
      at = next;
    }
    return DROP;
  };

  /**
   * Writes one `***` for the bytes from `head` (where nothing lies across) up to the first cut
   * after it with nothing across (or the file's end), and goes on from there. False when stopped.
   */
  const drop = async (): Promise<boolean> => {
    changed = true;
    if (output) await output.write(REDACTED, null, "latin1");
    let at = reach;
    for (;;) {
      if (!(await readAhead(at + reach))) return false;
      const available = tail - head;
      // Nothing lies across the place before a safe cut's character either: it is kept.
      const safe = safeCut(Math.max(1, at - reach), Math.min(at, available), true);
      if (safe !== -1) {
        head += safe - 1;
        return true;
      }
      if (at >= available) {
        head = tail;
        return true;
      }
      if (clearAround(at)) {
        head += at;
        return true;
      }
      // Let go of what is dropped for good; the next look starts `reach` further on.
      head += at - reach;
      at = 2 * reach;
    }
  };

  const flush = async (length: number) => {
    const text = buffer.toString("latin1", head, head + length);
    const out = redacted(text, head);
    head += length;
    if (out !== text) changed = true;
    if (output) await output.write(out, null, "latin1");
  };

  for (;;) {
    // Stopped: no change is made (a copy half written is thrown away by the caller).
    if (!(await readAhead(CHUNK + reach))) return false;
    if (eof && tail - head <= CHUNK) {
      await flush(tail - head);
      return changed;
    }
    const end = await pieceEnd();
    if (end === STOPPED) return false;
    if (end === HELD) return true;
    if (end === DROP) {
      // What comes before the last cut with nothing across it is redacted as a piece of its own.
      let clear = CHUNK - reach;
      while (clear > 0 && !clearAround(clear)) clear -= reach;
      clear = Math.max(clear, safeCut(0, CHUNK - SAFE_SEARCH));
      if (clear > 0) await flush(clear);
      if (!(await drop())) return false;
    } else {
      await flush(end);
    }
    if (changed && !output) return true;
  }
}

/** pieceEnd's answers that are no length. */
const HELD = -1;
const DROP = -2;
const STOPPED = -3;
