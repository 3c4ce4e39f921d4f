/**
 * The request that writes a compaction's summary: a request of its own, with no tools, whose only
 * message is the task, the previous summary, the folded conversation as plain text and, last, the
 * summarising instruction. The conversation is serialised rather than sent as messages so the model
 * cannot take it for a conversation to continue, tool results are cut (the summary needs what was
 * learnt, not every byte), and the request fits even when the conversation did not.
 */
import { errorText } from "../../core/errors.ts";
import type { StreamFunction } from "../../core/provider.ts";
import type { AgentMessage, AssistantMessage, Model, Usage, UserMessage } from "../../core/types.ts";
import { emptyUsage } from "../../core/usage.ts";

/** The system prompt of a summary request. */
export const SUMMARY_SYSTEM_PROMPT =
  "You write checkpoint summaries of a coding agent's work. Another instance of the agent continues the task from your summary alone, without the conversation. Do not continue the work, do not answer questions from the conversation and do not call tools: write the summary only.";

/** The instruction that ends every summary request. */
export const SUMMARY_INSTRUCTION = [
  "Summarise the conversation above for the agent that continues the task. It will see the task, your summary and the latest messages, nothing else. Use these sections, in this order, short and exact (file paths, names, commands and error messages as they are):",
  "## Goal",
  "## Done",
  "## Files changed",
  "## Left to do",
  "## Open errors",
  "Keep what the previous summary says unless it no longer holds. Write only the summary.",
].join("\n");

/** Marks the user message that stands for the folded conversation; a resumed transcript is read by it. */
export const SUMMARY_MARKER = "[agent-run: summary of the earlier conversation]";

/** Output tokens a summary may take (fewer when the model's own maximum is lower). */
export const SUMMARY_MAX_OUTPUT_TOKENS = 2048;
/** Characters of one tool result kept in the serialised conversation. */
const RESULT_CHARS = 1500;

export interface SummaryInput {
  taskPrompt: string;
  previousSummary: string | undefined;
  folded: AgentMessage[];
  /** The serialised conversation is cut to this many characters (its middle goes first). */
  maxChars: number;
}

/** The one user message of a summary request: task, previous summary, conversation, instruction last. */
export function summaryPrompt(input: SummaryInput): string {
  const conversation = fitMiddle(serialize(input.folded), input.maxChars);
  return [
    `<task>\n${input.taskPrompt}\n</task>`,
    ...(input.previousSummary ? [`<previous-summary>\n${input.previousSummary}\n</previous-summary>`] : []),
    `<conversation>\n${conversation}\n</conversation>`,
    SUMMARY_INSTRUCTION,
  ].join("\n\n");
}

/** The conversation as plain text, one block per message part, tool results cut. */
export function serialize(messages: AgentMessage[]): string {
  const blocks: string[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      const text = typeof message.content === "string" ? message.content : textOf(message.content);
      if (text) blocks.push(`[user]\n${text}`);
    } else if (message.role === "assistant") {
      if (message.stopReason === "error" || message.stopReason === "aborted") continue;
      for (const part of message.content) {
        if (part.type === "text" && part.text.trim()) blocks.push(`[assistant]\n${part.text}`);
        else if (part.type === "toolCall")
          blocks.push(`[assistant calls ${part.name}] ${json(part.arguments)}`);
      }
    } else {
      const text = cut(textOf(message.content), RESULT_CHARS);
      blocks.push(`[result of ${message.toolName}${message.isError ? ", an error" : ""}]\n${text}`);
    }
  }
  return blocks.join("\n\n");
}

/** What a summary request gave: the text, or why there is none, and the usage it cost. */
export type SummaryOutcome =
  | { ok: true; text: string; usage: Usage }
  | { ok: false; error: string; usage: Usage };

/** Sends the summary request and reads its text. Never throws. */
export async function requestSummary(
  stream: StreamFunction,
  model: Model,
  prompt: string,
  signal: AbortSignal,
): Promise<SummaryOutcome> {
  const maxOutputTokens = Math.min(
    model.maxOutputTokens ?? SUMMARY_MAX_OUTPUT_TOKENS,
    SUMMARY_MAX_OUTPUT_TOKENS,
  );
  const message: UserMessage = { role: "user", content: prompt, timestamp: Date.now() };
  let final: AssistantMessage | undefined;
  try {
    for await (const event of stream({
      model: { ...model, maxOutputTokens },
      systemPrompt: SUMMARY_SYSTEM_PROMPT,
      messages: [message],
      tools: [],
      thinkingLevel: "off",
      signal,
    })) {
      if (event.type === "done" || event.type === "error") final = event.message;
    }
  } catch (error) {
    return { ok: false, error: errorText(error), usage: emptyUsage() };
  }
  if (!final) return { ok: false, error: "the stream ended without an answer", usage: emptyUsage() };
  if (final.stopReason === "error" || final.stopReason === "aborted") {
    return { ok: false, error: final.errorMessage ?? final.stopReason, usage: final.usage };
  }
  const text = textOf(final.content).trim();
  if (text === "") return { ok: false, error: "the model wrote no summary", usage: final.usage };
  return { ok: true, text, usage: final.usage };
}

/** A summary without the model, when its request failed: the tool calls of the folded turns, in order. */
export function mechanicalSummary(folded: AgentMessage[], why: string): string {
  const calls: string[] = [];
  for (const message of folded) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      if (part.type === "toolCall") calls.push(`- ${part.name} ${cut(json(part.arguments), 160)}`);
    }
  }
  const shown =
    calls.length > 60
      ? [...calls.slice(0, 20), `- … ${calls.length - 40} more …`, ...calls.slice(-20)]
      : calls;
  return [
    `(No summary could be written: ${why}. The tool calls of the folded turns, in order:)`,
    ...(shown.length > 0 ? shown : ["- (none)"]),
  ].join("\n");
}

function textOf(content: AgentMessage["content"]): string {
  if (typeof content === "string") return content;
  return content
    .map((part) => (part.type === "text" ? part.text : part.type === "image" ? "[image]" : ""))
    .filter(Boolean)
    .join("\n");
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters]`;
}

/** Cuts the middle out of `text` when it is longer than `max`: the start and, longer, the end stay. */
function fitMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.3);
  const tail = max - head;
  return `${text.slice(0, head)}\n\n[… ${text.length - max} characters of the conversation left out …]\n\n${text.slice(-tail)}`;
}
