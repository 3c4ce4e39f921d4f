import type { StreamFunction } from "../core/provider.ts";
import type { Redactor } from "../output/index.ts";
import type { MessageRedactions } from "./message-redactions.ts";

/**
 * Redacts known secret values and token shapes from what goes to the model: the system prompt,
 * every user and tool-result message, and the model's own earlier messages except their thinking
 * blocks (sent back as they were, so signed thinking stays valid). A second line behind the
 * sandbox: it catches a credential a command printed as is, or in its JSON, URL or base64 form,
 * not one the command transformed (`rev`, `xxd`); and a model that turned one back and wrote it in
 * its text or a tool call does not get it into the next request either.
 *
 * Each message is redacted once and the copy reused on later turns and for transcript.json (see
 * ./message-redactions.ts), so a long session costs one pass per message, not one pass over the
 * whole transcript per turn.
 */
export function redactRequests(
  stream: StreamFunction,
  redactor: Pick<Redactor, "redact">,
  messages: Pick<MessageRedactions, "forRequest">,
): StreamFunction {
  return (request) =>
    stream({
      ...request,
      systemPrompt: redactor.redact(request.systemPrompt),
      messages: request.messages.map((message) => messages.forRequest(message)),
    });
}
