import type { StreamFunction } from "../core/provider.ts";
import type { AgentMessage } from "../core/types.ts";
import type { Redactor } from "../output/index.ts";

/**
 * Redacts known secret values and token shapes from what goes to the model: the system prompt,
 * every user and tool-result message, and the model's own earlier messages except their thinking
 * blocks (sent back as they were, so signed thinking stays valid). A second line behind the
 * sandbox: it catches a credential a command printed as is, or in its JSON, URL or base64 form,
 * not one the command transformed (`rev`, `xxd`); and a model that turned one back and wrote it in
 * its text or a tool call does not get it into the next request either.
 *
 * Each message is redacted once and the copy reused on later turns (messages are not changed once
 * in the transcript; a replaced one is a new object and is redacted afresh), so a long session
 * costs one pass per message, not one pass over the whole transcript per turn. This assumes the
 * redactor's secrets do not change during the run, as in `runTask`.
 */
export function redactRequests(
  stream: StreamFunction,
  redactor: Pick<Redactor, "redact" | "redactDeep">,
): StreamFunction {
  const redacted = new WeakMap<AgentMessage, AgentMessage>();
  const redactMessage = (message: AgentMessage): AgentMessage => {
    let copy = redacted.get(message);
    if (copy === undefined) {
      copy =
        message.role === "assistant"
          ? {
              ...redactor.redactDeep({ ...message, content: [] }),
              content: message.content.map((part) =>
                part.type === "thinking" ? part : redactor.redactDeep(part),
              ),
            }
          : redactor.redactDeep(message);
      redacted.set(message, copy);
    }
    return copy;
  };
  return (request) =>
    stream({
      ...request,
      systemPrompt: redactor.redact(request.systemPrompt),
      messages: request.messages.map(redactMessage),
    });
}
