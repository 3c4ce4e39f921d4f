/**
 * transcript.json written while the run goes on: the conversation's messages go into a temp file
 * next to it as they are added (in batches of SPOOL_BATCH_CHARS, by the thread pool), so the end of
 * the run writes only the last ones and the closing fields, then renames the file into place.
 * Before, the end serialised and wrote the whole conversation at once: for 500 turns of 40 KB tool
 * results (20 MB) on a 2-core guest, the last answer to the exit took ~0.5 s; ~0.15 s now. A
 * conversation under one batch (100 short turns: 165 KB) is written at the end at once, as before.
 *
 * The file follows the conversation as `transcriptMessages` would serialise it: when a message
 * already written changes (compaction made an older tool result a stub, or folded older turns into
 * a summary), the file is cut back to the last message that is still the same and goes on from
 * there; when the redactor learns a secret, it is started again. Any failure makes `finish` throw:
 * the caller then writes the transcript whole, as before.
 */
import fs from "node:fs/promises";
import type { AgentMessage } from "../../core/types.ts";
import { tempPathFor, writeFileAtomic } from "../../output/atomic-write.ts";
import type { Redactor } from "../../output/redact.ts";
import type { MessageRedactions } from "../message-redactions.ts";
import {
  keptMessages,
  type TranscriptHead,
  type TranscriptTail,
  transcriptClosing,
  transcriptOpening,
} from "./transcript-file.ts";

/** Serialised messages held before they are written: 1 MiB. */
export const SPOOL_BATCH_CHARS = 1024 * 1024;

export interface TranscriptSpool {
  /** The temp file. */
  readonly file: string;
  /** The fields that come before the messages, unredacted. */
  readonly head: TranscriptHead;
  /** The conversation as it is now: what is new is serialised, and written once a batch is waiting. */
  update(messages: AgentMessage[]): void;
  /** Writes the rest of `messages` and `tail`, and renames the file to `target`. Throws when the spool failed. */
  finish(messages: AgentMessage[], tail: TranscriptTail): Promise<void>;
  /** Closes and removes the temp file, if still there. Never rejects. */
  dispose(): Promise<void>;
}

export function createTranscriptSpool(options: {
  target: string;
  head: TranscriptHead;
  redactions: Pick<MessageRedactions, "forTranscript">;
  redactor: Pick<Redactor, "redactDeep" | "version">;
}): TranscriptSpool {
  const { target, redactions, redactor } = options;
  const file = tempPathFor(`${target}.spool`);
  let handle: Promise<fs.FileHandle> | undefined;
  // The file as it will be once every queued write is done.
  let version = redactor.version;
  let size = 0;
  let opening = 0;
  // Each message in the file, where its text ends, and whether redaction changed it.
  const written: { message: AgentMessage; end: number; redacted: boolean }[] = [];
  let pending: { message: AgentMessage; json: string; redacted: boolean }[] = [];
  let pendingChars = 0;
  let queue: Promise<void> = Promise.resolve();
  let failure: unknown;
  let closed = false;
  let renamed = false;
  let handleClosed = false;

  const enqueue = (step: (fh: fs.FileHandle) => Promise<void>) => {
    if (!handle) {
      handle = fs.open(file, "w");
      // Its failure is the first step's, met when that step runs.
      handle.catch(() => {});
    }
    const opened = handle;
    queue = queue.then(async () => {
      if (failure !== undefined || closed) return;
      try {
        await step(await opened);
      } catch (error) {
        failure = error;
      }
    });
  };

  const writeAt = (text: string) => {
    const bytes = Buffer.from(text);
    const position = size;
    size += bytes.length;
    enqueue(async (fh) => {
      await fh.write(bytes, 0, bytes.length, position);
    });
  };

  const cutTo = (count: number) => {
    written.length = count;
    size = written[count - 1]?.end ?? opening;
    const length = size;
    enqueue((fh) => fh.truncate(length));
  };

  const flush = () => {
    if (pending.length === 0) return;
    if (opening === 0) {
      const text = transcriptOpening(redactor.redactDeep(options.head));
      writeAt(text);
      opening = size;
    }
    let text = "";
    let end = size;
    for (const part of pending) {
      const piece = written.length > 0 ? `,${part.json}` : part.json;
      text += piece;
      end += Buffer.byteLength(piece);
      written.push({ message: part.message, end, redacted: part.redacted });
    }
    writeAt(text);
    pending = [];
    pendingChars = 0;
  };

  const take = (messages: AgentMessage[]) => {
    if (redactor.version !== version) {
      // A secret learnt since: everything written may hold it.
      version = redactor.version;
      pending = [];
      pendingChars = 0;
      if (opening > 0) {
        opening = 0;
        cutTo(0);
      }
    }
    const kept = keptMessages(messages);
    let same = 0;
    const known = written.length + pending.length;
    while (same < known && same < kept.length) {
      const message = (same < written.length ? written[same] : pending[same - written.length])?.message;
      if (message !== kept[same]) break;
      same++;
    }
    if (same < written.length) {
      pending = [];
      pendingChars = 0;
      cutTo(same);
    } else if (same < known) {
      pending = pending.slice(0, same - written.length);
      pendingChars = pending.reduce((sum, part) => sum + part.json.length, 0);
    }
    for (const message of kept.slice(same)) {
      const part = redactions.forTranscript(message);
      pending.push({ message, ...part });
      pendingChars += part.json.length;
    }
  };

  return {
    file,
    head: options.head,
    update(messages) {
      if (failure !== undefined || closed) return;
      try {
        take(messages);
        if (pendingChars >= SPOOL_BATCH_CHARS) flush();
      } catch (error) {
        // A message that cannot be serialised: `finish` says so, and the transcript is written whole.
        failure = error;
      }
    },
    async finish(messages, tail) {
      // Once only, and never after `dispose`: a second end (a stop signal's early outputs, then the
      // full ones) writes the transcript whole.
      if (failure !== undefined || closed) throw failure ?? new Error("the transcript's temp file is gone");
      take(messages);
      const closing = () =>
        transcriptClosing(
          redactor.redactDeep(tail),
          [...written, ...pending].some((part) => part.redacted),
        );
      if (opening === 0) {
        // Nothing written yet (a conversation under one batch): at once, as a small file is best
        // written (see writeFileAtomic), rather than in several trips through the thread pool.
        const text = `${transcriptOpening(redactor.redactDeep(options.head))}${pending.map((part) => part.json).join(",")}${closing()}`;
        closed = true;
        await writeFileAtomic(target, text);
        renamed = true;
        return;
      }
      flush();
      writeAt(closing());
      enqueue(async (fh) => {
        handleClosed = true;
        await fh.close();
        closed = true;
        await fs.rename(file, target);
        renamed = true;
      });
      await queue;
      if (!renamed) throw failure ?? new Error("the transcript's temp file is gone");
    },
    async dispose() {
      await queue;
      closed = true;
      if (handle && !handleClosed) {
        handleClosed = true;
        await (await handle.catch(() => undefined))?.close().catch(() => {});
      }
      await fs.rm(file, { force: true }).catch(() => {});
    },
  };
}
