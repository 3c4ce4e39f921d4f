import type { StreamFunction } from "../core/provider.ts";
import type { AgentMessage } from "../core/types.ts";
import type { Redactor } from "../output/index.ts";

/**
 * Redacts known secret values from what goes to the model: the system prompt and every user and
 * tool-result message (the model's own messages are sent as they were, so signed thinking blocks
 * stay valid). A second line behind the sandbox: it catches a credential a command printed as is,
 * or in its JSON, URL or base64 form, not one the command transformed (`rev`, `xxd`).
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
    if (message.role === "assistant") return message;
    let copy = redacted.get(message);
    if (copy === undefined) {
      copy = redactor.redactDeep(message);
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
