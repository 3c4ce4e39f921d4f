/**
 * `events.jsonl`: one JSON object per line, written with a synchronous write on an append-mode file
 * descriptor as each event happens, so a run that is killed keeps every line written before. A line
 * is written whole or not at all: when the disk fills in the middle of one, what was written of it
 * is cut off again, so the file never ends in half a line (later lines go on when room comes back).
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
  /** Applied to each serialised line (e.g. a Redactor's `redact`). */
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
      const line = Buffer.from(`${redact(serialise(event))}\n`);
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

function serialise(event: object): string {
  const ancestors: object[] = [];
  return JSON.stringify(event, function (this: unknown, _key: string, value: unknown) {
    if (typeof value === "bigint") return value.toString();
    if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
    if (value === null || typeof value !== "object") return value;
    // `this` is the object holding `value`: drop ancestors that are not on the current path.
    while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
    if (ancestors.includes(value)) return "[Circular]";
    ancestors.push(value);
    return value;
  });
}
