/**
 * `events.jsonl`: one JSON object per line, written with a synchronous write on an append-mode file
 * descriptor as each event happens, so a run that is killed keeps every line written before. A line
 * is written whole or not at all: when the disk fills in the middle of one, what was written of it
 * is cut off again, so the file never ends in half a line (later lines go on when room comes back).
 *
 * Redaction goes through each string of an event (keys, and the text of numbers, too) before it is
 * serialised, not through the serialised line: a tool's result is in two events, and the renderer
 * and the next request redact the same string again, so a redactor that remembers its answers
 * (redact.ts) scans a big result once instead of once per line. Each string is looked at as it
 * is, before JSON escapes it: a token after a line break is still at the start of a word, and
 * base64 wrapped over lines is still wrapped.
 */
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";

export interface EventsWriter {
  /** Appends `event` as one JSON line, redacted. After `close` it does nothing. Never throws. */
  write(event: object): void;
  /** Closes the file. Safe to call more than once. */
  close(): Promise<void>;
}

export interface EventsWriterOptions {
  /** Applied to each string of an event, keys included (e.g. a Redactor's `redact`). */
  redact?: (text: string) => string;
}

/**
 * Opens (creating the directory, appending to an existing file) the events file at `file`.
 * Throws when the file cannot be opened. Values JSON cannot hold are written as strings
 * (bigint), `{ name, message, stack }` (Error) or `"[Circular]"`.
 */
export function createEventsWriter(file: string, options: EventsWriterOptions = {}): EventsWriter {
  mkdirSync(path.dirname(file), { recursive: true });
  let fd: number | undefined = openSync(file, "a");
  let size = fstatSync(fd).size;
  const redact = options.redact ?? ((text: string) => text);
  return {
    write(event) {
      if (fd === undefined) return;
      const line = Buffer.from(`${lineOf(event, redact)}\n`);
      let done = 0;
      try {
        while (done < line.length) done += writeSync(fd, line, done, line.length - done);
        size += line.length;
      } catch {
        // A full disk or a closed descriptor must not take the run down; the lost line is the cost.
        if (done > 0) {
          try {
            ftruncateSync(fd, size);
          } catch {
            // Nothing more to do: the descriptor is gone.
          }
        }
      }
    },
    async close() {
      if (fd === undefined) return;
      const open = fd;
      fd = undefined;
      closeSync(open);
    },
  };
}

/**
 * The event's line; when it cannot be serialised (a getter or `toJSON` that throws), a line that
 * says so with its type, so the run goes on and the file shows where.
 */
function lineOf(event: object, redact: (text: string) => string): string {
  try {
    return serialise(event, redact);
  } catch (error) {
    const type = (event as { type?: unknown }).type;
    return serialise(
      { type: typeof type === "string" ? type : "unknown", unserialisable: String(error) },
      redact,
    );
  }
}

function serialise(event: object, redact: (text: string) => string): string {
  // The objects on the path to the value at hand, as met (for cycles) and as written (the holder
  // JSON.stringify passes as `this`: a copy where a key had to be redacted).
  const met: object[] = [];
  const written: object[] = [];
  return JSON.stringify(event, function (this: unknown, _key: string, value: unknown) {
    if (typeof value === "string") return redact(value);
    if (typeof value === "number") {
      // A secret of digits only (a PIN) would show in a number's text.
      const text = String(value);
      const redacted = redact(text);
      return redacted === text ? value : redacted;
    }
    if (typeof value === "bigint") return redact(value.toString());
    if (value === null || typeof value !== "object") return value;
    while (written.length > 0 && written.at(-1) !== this) {
      written.pop();
      met.pop();
    }
    if (met.includes(value)) return "[Circular]";
    // An error's replacement holds its fields: on the path like any holder, so a cycle through
    // an error's parents is still seen.
    const holder =
      value instanceof Error
        ? { name: value.name, message: value.message, stack: value.stack }
        : withRedactedKeys(value, redact);
    met.push(value);
    written.push(holder);
    return holder;
  });
}

/** `value`, or a copy of it whose keys are redacted when one of them holds a secret. */
function withRedactedKeys(value: object, redact: (text: string) => string): object {
  if (Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.every((key) => redact(key) === key)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of keys) copy[redact(key)] = (value as Record<string, unknown>)[key];
  return copy;
}
