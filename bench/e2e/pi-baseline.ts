/**
 * What pi (pi-mono's coding agent, `pi -p`) does with the same session, as a `transformContext`,
 * written here from its documented algorithm (packages/coding-agent/src/core/compaction): within
 * one prompt it never compacts on its own; when the provider refuses a request as too long, it
 * keeps the newest messages worth 20,000 tokens (characters / 4), cut at a message that is not a
 * tool result, replaces everything before them (the task prompt included) by a summary the model
 * writes from the serialised older messages (tool results cut to 2,000 characters), and sends the
 * turn again. The bench measures the bytes it sends against agent-run's.
 */
import type { StreamFunction } from "../../src/core/provider.ts";
import type { AgentMessage, TransformContextHook, UserMessage } from "../../src/core/types.ts";

/** pi's `keepRecentTokens` default. */
const KEEP_RECENT_TOKENS = 20_000;
/** pi's serialisation cut for tool results. */
const RESULT_CHARS = 2000;
/** About the length of pi's summarisation prompt and system prompt (our words, its size). */
const INSTRUCTION = `Summarise the conversation above as a checkpoint another model continues from. ${"Keep the goal, the constraints, what is done, what is in progress, what is blocked, the decisions and the next steps, with exact paths and names. ".repeat(9)}`;
const SYSTEM = `You summarise coding sessions. ${"Only output the summary. ".repeat(10)}`;

function chars(message: AgentMessage): number {
  if (typeof message.content === "string") return message.content.length;
  let n = 0;
  for (const part of message.content) {
    if (part.type === "text") n += part.text.length;
    else if (part.type === "thinking") n += part.thinking.length;
    else if (part.type === "toolCall") n += part.name.length + JSON.stringify(part.arguments).length;
    else n += 4800;
  }
  return n;
}

function serialise(messages: AgentMessage[]): string {
  return messages
    .map((m) => {
      if (m.role === "toolResult") {
        const text = m.content.map((p) => (p.type === "text" ? p.text : "")).join("");
        return `[Tool result]: ${text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS)}\n[… truncated]` : text}`;
      }
      if (typeof m.content === "string") return `[User]: ${m.content}`;
      return m.content
        .map((p) =>
          p.type === "text"
            ? `[${m.role === "user" ? "User" : "Assistant"}]: ${p.text}`
            : p.type === "toolCall"
              ? `[Assistant tool calls]: ${p.name}(${JSON.stringify(p.arguments)})`
              : "",
        )
        .join("\n");
    })
    .join("\n\n");
}

/** pi's compaction as a transform, and the time it spent compacting. */
export function piLikeCompaction(stream: StreamFunction): {
  transform: TransformContextHook;
  compactingMs: () => number;
} {
  let summary: UserMessage | undefined;
  let firstKept: AgentMessage | undefined;
  let spent = 0;
  const view = (messages: AgentMessage[]) => {
    const index = firstKept ? messages.indexOf(firstKept) : -1;
    return summary && index >= 0 ? [summary, ...messages.slice(index)] : messages;
  };
  const transform: TransformContextHook = async (messages, signal, info) => {
    if (!info.overflow) return view(messages);
    const started = performance.now();
    const start = firstKept ? Math.max(0, messages.indexOf(firstKept)) : 0;
    let cut = start;
    let kept = 0;
    for (let i = messages.length - 1; i >= start; i--) {
      kept += Math.ceil(chars(messages[i] as AgentMessage) / 4);
      if (kept < KEEP_RECENT_TOKENS) continue;
      cut = i;
      while (cut < messages.length - 1 && messages[cut]?.role === "toolResult") cut++;
      break;
    }
    if (cut <= start) return view(messages);
    const previous = summary ? `<previous-summary>\n${summary.content}\n</previous-summary>\n\n` : "";
    const prompt = `<conversation>\n${serialise(messages.slice(start, cut))}\n</conversation>\n\n${previous}${INSTRUCTION}`;
    let text = "";
    for await (const event of stream({
      model: { ...info.model, maxOutputTokens: 13_107 },
      systemPrompt: SYSTEM,
      messages: [{ role: "user", content: prompt, timestamp: Date.now() }],
      tools: [],
      thinkingLevel: "off",
      signal,
    })) {
      if (event.type === "done" || event.type === "error") {
        info.addUsage(event.message.usage);
        text = event.message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
      }
    }
    summary = {
      role: "user",
      content: `The conversation history before this point was compacted into the following summary:\n\n<summary>\n${text}\n</summary>`,
      timestamp: Date.now(),
    };
    firstKept = messages[cut];
    spent += performance.now() - started;
    return view(messages);
  };
  return { transform, compactingMs: () => spent };
}
