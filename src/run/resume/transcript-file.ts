/**
 * `transcript.json` in the outputs dir: what a later run needs to resume this one (DESIGN §7,
 * docs/outputs.md). The conversation as the model would be sent it next (compacted as it was;
 * failed and aborted model calls left out, as providers leave them out of requests), redacted
 * like every output, with the run's totals and where its patch stands.
 *
 * Redaction: every value the run redacts is `***` here, as it was in every request the model got
 * (requests are redacted the same way), so a resumed model sees what it saw. A thinking block
 * whose text held a secret no longer matches its signature: the signature is dropped, and the
 * block goes back as plain text (Anthropic) or not at all (Responses).
 */
import path from "node:path";
import { z } from "zod";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../core/types.ts";
import { writeFileAtomic } from "../../output/atomic-write.ts";
import type { Redactor } from "../../output/redact.ts";
import type { Conclusion } from "../../output/types.ts";
import type { RunTotals } from "../../output/usage-json.ts";
import { OUTPUT_FILES } from "../../output/write-outputs.ts";
import { readInputFile } from "../../system/read-input-file.ts";
import type { MessageRedactions } from "../message-redactions.ts";

export const TRANSCRIPT_FILE = OUTPUT_FILES.transcript;
/** A transcript is the compacted conversation: far below this even for runs of thousands of turns. */
const MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024;
const FORMAT = "agent-run-transcript";
const VERSION = 1;

export interface TranscriptFile {
  format: typeof FORMAT;
  version: typeof VERSION;
  run_id: string;
  /** The run this one resumed, when it did. */
  resumed_from?: string;
  task: string;
  /** `provider:id` of the model that ran last. */
  model: string;
  started_at: string;
  conclusion: Conclusion;
  reason?: string;
  /** The patch held a secret and was redacted: it cannot be applied as the agent meant it. */
  patch_had_secret: boolean;
  /** Some value in the messages was redacted. */
  redacted: boolean;
  /** This run and the runs it resumed, together: what a later resume counts as "earlier". */
  totals: RunTotals;
  messages: AgentMessage[];
}

/** The conversation of a transcript, redacted and serialised: the costly part of writing one. */
export interface TranscriptMessages {
  /** The JSON array of the messages. */
  json: string;
  /** Some value in them was redacted. */
  redacted: boolean;
}

/** The fields of a transcript known when its run starts: they come before `messages`. */
export type TranscriptHead = Pick<TranscriptFile, "run_id" | "resumed_from" | "task" | "started_at">;

/** The fields known at its end, but `redacted`: they come after `messages`. */
export type TranscriptTail = Pick<
  TranscriptFile,
  "model" | "conclusion" | "reason" | "patch_had_secret" | "totals"
>;

/** The messages a transcript keeps: failed and aborted model calls are left out, as requests leave them. */
export function keptMessages(messages: AgentMessage[]): AgentMessage[] {
  return messages.filter((m) => !(m.role === "assistant" && isFailed(m)));
}

/**
 * Serialises `messages` for `writeTranscript`, each redacted as `redactions` has it (most of them
 * were already, for the requests that carried them).
 */
export function transcriptMessages(
  messages: AgentMessage[],
  redactions: Pick<MessageRedactions, "forTranscript">,
): TranscriptMessages {
  let redacted = false;
  const parts = keptMessages(messages).map((message) => {
    const part = redactions.forTranscript(message);
    redacted ||= part.redacted;
    return part.json;
  });
  return { json: `[${parts.join(",")}]`, redacted };
}

/**
 * The file up to its first message: the head's fields, then `"messages":[`. The fields known at
 * the start come first so that the file can be written as the run goes on (./transcript-spool.ts).
 */
export function transcriptOpening(head: TranscriptHead): string {
  return `${JSON.stringify({ format: FORMAT, version: VERSION, ...head }).slice(0, -1)},"messages":[`;
}

/** The file from after its last message: `]`, the tail's fields and `redacted`. */
export function transcriptClosing(tail: TranscriptTail, redacted: boolean): string {
  return `],${JSON.stringify({ ...tail, redacted }).slice(1)}\n`;
}

/** Writes the transcript into `dir` at once, redacted (see the header). */
export async function writeTranscript(
  dir: string,
  fields: { head: TranscriptHead; tail: TranscriptTail },
  messages: TranscriptMessages,
  redactor: Pick<Redactor, "redactDeep">,
): Promise<string> {
  const text =
    transcriptOpening(redactor.redactDeep(fields.head)) +
    messages.json.slice(1, -1) +
    transcriptClosing(redactor.redactDeep(fields.tail), messages.redacted);
  const target = path.join(dir, TRANSCRIPT_FILE);
  await writeFileAtomic(target, text);
  return target;
}

/** Reads and checks `dir/transcript.json`; throws an Error saying what is wrong. */
export async function readTranscript(dir: string): Promise<TranscriptFile> {
  const file = path.join(dir, TRANSCRIPT_FILE);
  // Never a plain readFile: a FIFO put there would hang the run before it starts.
  const read = await readInputFile(file, { maxBytes: MAX_TRANSCRIPT_BYTES });
  if (!read.ok) {
    if (read.problem === "not_found")
      throw new Error(`${file} is missing: ${dir} is not the outputs folder of a run that can be resumed`);
    throw new Error(`${file} ${read.message}`);
  }
  const text = read.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  transcriptSchema ??= buildTranscriptSchema();
  const parsed = transcriptSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `${file} is not a transcript agent-run can resume: ${issue?.path.join(".") || "(top)"}: ${issue?.message}`,
    );
  }
  return parsed.data as unknown as TranscriptFile;
}

/**
 * The messages of a transcript made whole for a new request: every tool call gets a result (a
 * call whose result is missing gets an error one saying it did not run).
 */
export function restoreMessages(messages: AgentMessage[]): AgentMessage[] {
  const answered = new Set(messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : [])));
  const out: AgentMessage[] = [];
  let pending: ToolResultMessage[] = [];
  const flush = () => {
    out.push(...pending);
    pending = [];
  };
  for (const message of messages) {
    if (message.role !== "toolResult") flush();
    out.push(message);
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      if (part.type !== "toolCall" || answered.has(part.id)) continue;
      pending.push({
        role: "toolResult",
        toolCallId: part.id,
        toolName: part.name,
        content: [{ type: "text", text: "Not run: the earlier run ended before this call ran." }],
        details: {},
        isError: true,
        timestamp: message.timestamp,
      });
    }
  }
  flush();
  return out;
}

function isFailed(message: AssistantMessage): boolean {
  return message.stopReason === "error" || message.stopReason === "aborted";
}

/**
 * The schema a transcript is checked against, built on the first resume: zod builds its ~50
 * parts eagerly, which every run would otherwise pay at start-up for a file it never reads.
 */
function buildTranscriptSchema() {
  const text = z.looseObject({ type: z.literal("text"), text: z.string() });
  const image = z.looseObject({ type: z.literal("image"), data: z.string(), mimeType: z.string() });
  const thinking = z.looseObject({
    type: z.literal("thinking"),
    thinking: z.string(),
    signature: z.string().optional(),
    redacted: z.boolean().optional(),
  });
  const toolCall = z.looseObject({
    type: z.literal("toolCall"),
    id: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
  });
  const cost = z.looseObject({
    input: z.number(),
    output: z.number(),
    cacheRead: z.number(),
    cacheWrite: z.number(),
    total: z.number(),
  });
  const usage = z.looseObject({
    input: z.number(),
    output: z.number(),
    cacheRead: z.number(),
    cacheWrite: z.number(),
    totalTokens: z.number(),
    cost,
    costUnknown: z.boolean().optional(),
  });
  const message = z.discriminatedUnion("role", [
    z.looseObject({
      role: z.literal("user"),
      content: z.union([z.string(), z.array(z.union([text, image]))]),
      timestamp: z.number(),
    }),
    z.looseObject({
      role: z.literal("assistant"),
      content: z.array(z.union([text, thinking, toolCall])),
      provider: z.string(),
      model: z.string(),
      usage,
      stopReason: z.enum(["stop", "length", "toolUse", "error", "aborted"]),
      timestamp: z.number(),
    }),
    z.looseObject({
      role: z.literal("toolResult"),
      toolCallId: z.string(),
      toolName: z.string(),
      content: z.array(z.union([text, image])),
      isError: z.boolean(),
      timestamp: z.number(),
    }),
  ]);
  const stats = z.looseObject({
    calls: z.number(),
    errors: z.number(),
    blocked: z.number(),
    durationMs: z.number(),
  });
  return z.looseObject({
    format: z.literal(FORMAT),
    version: z.literal(VERSION),
    run_id: z.string(),
    resumed_from: z.string().optional(),
    task: z.string(),
    model: z.string(),
    started_at: z.string(),
    conclusion: z.enum(["success", "failure", "limit", "error", "interrupted"]),
    reason: z.string().optional(),
    patch_had_secret: z.boolean(),
    redacted: z.boolean(),
    totals: z.looseObject({
      turns: z.number(),
      durationMs: z.number(),
      usage,
      toolCalls: z.record(z.string(), stats),
    }),
    messages: z.array(message).min(1),
  });
}

let transcriptSchema: ReturnType<typeof buildTranscriptSchema> | undefined;
