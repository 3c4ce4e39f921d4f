import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import type { AgentMessage, ToolResultMessage } from "../src/core/types.ts";
import { emptyUsage } from "../src/core/usage.ts";
import { createRedactor } from "../src/output/index.ts";
import { createMessageRedactions } from "../src/run/message-redactions.ts";
import {
  readTranscript,
  TRANSCRIPT_FILE,
  type TranscriptTail,
  transcriptMessages,
  writeTranscript,
} from "../src/run/resume/transcript-file.ts";
import { createTranscriptSpool, SPOOL_BATCH_CHARS } from "../src/run/resume/transcript-spool.ts";

const SECRET = "sk-ant-spool-secret-0123456789";
const head = { run_id: "run-1", task: "spool", started_at: new Date(0).toISOString() };
const tail: TranscriptTail = {
  model: "anthropic:claude-sonnet-4-6",
  conclusion: "success",
  patch_had_secret: false,
  totals: { turns: 1, durationMs: 1, usage: emptyUsage(), toolCalls: {} },
};

function result(i: number, chars: number, text = ""): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: `call_${i}`,
    toolName: "read",
    content: [{ type: "text", text: `${text}${`line ${i}\n`.repeat(chars / 8)}` }],
    details: { path: `file${i}` },
    isError: false,
    timestamp: i,
  };
}

function setUp() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-run-spool-"));
  const redactor = createRedactor({ env: { ANTHROPIC_API_KEY: SECRET } });
  const redactions = createMessageRedactions(redactor);
  const target = path.join(dir, TRANSCRIPT_FILE);
  const spool = createTranscriptSpool({ target, head, redactions, redactor });
  /** The file the whole-at-once path writes for `messages`, in a folder of its own. */
  const whole = async (messages: AgentMessage[]) => {
    const other = mkdtempSync(path.join(os.tmpdir(), "agent-run-spool-whole-"));
    const file = await writeTranscript(
      other,
      { head, tail },
      transcriptMessages(messages, createMessageRedactions(redactor)),
      redactor,
    );
    return readFileSync(file, "utf8");
  };
  return { dir, redactor, target, spool, whole };
}

describe("transcript.json written as the run goes on", () => {
  test("a big conversation is written during the run; the end writes the same file as at once", async () => {
    const { dir, target, spool, whole } = setUp();
    const messages: AgentMessage[] = [{ role: "user", content: `task with ${SECRET}`, timestamp: 0 }];
    const big = Math.ceil(SPOOL_BATCH_CHARS / 3);
    for (let i = 1; i <= 12; i++) {
      messages.push(result(i, big));
      spool.update(messages);
    }
    // Flushes are written by the thread pool meanwhile.
    await until(() => existsSync(spool.file) && statSync(spool.file).size > 3 * SPOOL_BATCH_CHARS);
    expect(existsSync(target)).toBe(false);

    messages.push(result(13, 100, `the last one, ${SECRET}`));
    await spool.finish(messages, tail);
    const text = readFileSync(target, "utf8");
    expect(text).toBe(await whole(messages));
    expect(text).not.toContain(SECRET);
    const read = await readTranscript(dir);
    expect(read.messages).toHaveLength(messages.length);
    expect(read.redacted).toBe(true);
    expect(read.run_id).toBe("run-1");
    await spool.dispose();
    expect(readdirSync(dir)).toEqual([TRANSCRIPT_FILE]);
  });

  test("messages written and then compacted (a stub, a fold) are cut back and written again", async () => {
    const { target, spool, whole } = setUp();
    const messages: AgentMessage[] = [{ role: "user", content: "task", timestamp: 0 }];
    const big = Math.ceil(SPOOL_BATCH_CHARS / 2);
    for (let i = 1; i <= 6; i++) messages.push(result(i, big));
    spool.update(messages);
    // A stub replaces an older result: the file goes back to the message before it.
    const stubbed = [...messages];
    stubbed[2] = { ...result(2, 8), content: [{ type: "text", text: "[pruned]" }] };
    spool.update(stubbed);
    // Then a fold: the task, a summary, the kept turns.
    const summary: AgentMessage = { role: "user", content: "summary of turns 1-4", timestamp: 1 };
    const folded = [messages[0] as AgentMessage, summary, ...stubbed.slice(5)];
    for (let i = 7; i <= 9; i++) {
      folded.push(result(i, big));
      spool.update(folded);
    }
    await spool.finish(folded, tail);
    expect(readFileSync(target, "utf8")).toBe(await whole(folded));
  });

  test("a secret learnt after messages were written is redacted from them", async () => {
    const { redactor, target, spool, whole } = setUp();
    const later = "token-learnt-later-0123456789";
    const messages: AgentMessage[] = [{ role: "user", content: `use ${later}`, timestamp: 0 }];
    for (let i = 1; i <= 4; i++) messages.push(result(i, SPOOL_BATCH_CHARS, later));
    spool.update(messages);
    await until(() => existsSync(spool.file) && readFileSync(spool.file, "utf8").includes(later));
    redactor.add(later);
    await spool.finish(messages, tail);
    const text = readFileSync(target, "utf8");
    expect(text).not.toContain(later);
    expect(text).toBe(await whole(messages));
  });

  test("a small conversation is written at the end only", async () => {
    const { target, spool, whole } = setUp();
    const messages: AgentMessage[] = [{ role: "user", content: "task", timestamp: 0 }, result(1, 800)];
    spool.update(messages);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(spool.file)).toBe(false);
    await spool.finish(messages, tail);
    expect(readFileSync(target, "utf8")).toBe(await whole(messages));
  });

  test("when the spool fails, finish throws and leaves no file behind", async () => {
    const { dir, spool } = setUp();
    const messages: AgentMessage[] = [{ role: "user", content: "task", timestamp: 0 }];
    const cyclic: ToolResultMessage = result(1, 8);
    (cyclic.content as unknown[]).push(cyclic);
    messages.push(cyclic);
    spool.update(messages);
    await expect(spool.finish(messages, tail)).rejects.toThrow();
    await spool.dispose();
    expect(readdirSync(dir)).toEqual([]);
  });

  test("it ends once: a second finish, or one after dispose, throws (the caller writes the transcript whole)", async () => {
    const messages: AgentMessage[] = [{ role: "user", content: "task", timestamp: 0 }];
    const once = setUp();
    await once.spool.finish(messages, tail);
    await expect(once.spool.finish(messages, { ...tail, conclusion: "failure" })).rejects.toThrow();
    const disposed = setUp();
    disposed.spool.update([...messages, result(1, SPOOL_BATCH_CHARS)]);
    await disposed.spool.dispose();
    await expect(disposed.spool.finish(messages, tail)).rejects.toThrow();
    expect(readdirSync(disposed.dir)).toEqual([]);
  });
});

/** Waits for `check` to hold, for at most 10 s (a loaded machine's thread pool). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the spool's writes");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
