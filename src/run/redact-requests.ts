import type { StreamFunction } from "../core/provider.ts";
import type { Redactor } from "../output/index.ts";

/**
 * Redacts known secret values from what goes to the model: the system prompt and every user and
 * tool-result message (the model's own messages are sent as they were, so signed thinking blocks
 * stay valid). A second line behind the sandbox: it catches a credential a command printed as is,
 * or in its JSON, URL or base64 form, not one the command transformed (`rev`, `xxd`).
 */
export function redactRequests(
  stream: StreamFunction,
  redactor: Pick<Redactor, "redact" | "redactDeep">,
): StreamFunction {
  return (request) =>
    stream({
      ...request,
      systemPrompt: redactor.redact(request.systemPrompt),
      messages: request.messages.map((message) =>
        message.role === "assistant" ? message : redactor.redactDeep(message),
      ),
    });
}
