import type { LoopState } from "./agent-loop.ts";
import { errorText } from "./errors.ts";
import type { AgentEvent } from "./events.ts";
import type { StreamFunction } from "./provider.ts";
import type { AgentMessage, AssistantMessage, Model } from "./types.ts";
import { emptyUsage } from "./usage.ts";

/**
 * One model call with `messages` (the transcript as shaped for this request): streams the
 * assistant message, emitting `message_start`, `message_update`s and `message_end`, and returns
 * the final message. A provider that throws, or ends without a final
 * message, still gives one: `stopReason: "error"` (or "aborted"), so the loop has one failure path.
 */
export async function streamAssistant(
  state: LoopState,
  messages: AgentMessage[],
  stream: StreamFunction,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
  now: () => number,
): Promise<AssistantMessage> {
  let started = false;
  let final: AssistantMessage | undefined;
  try {
    const events = stream({
      model: state.model,
      systemPrompt: state.systemPrompt,
      messages,
      tools: state.tools,
      thinkingLevel: state.thinkingLevel,
      signal,
    });
    for await (const event of events) {
      if (event.type === "done" || event.type === "error") {
        final = event.message;
        break;
      }
      if (event.type === "start") {
        started = true;
        emit({ type: "message_start", message: event.partial });
      } else {
        emit({ type: "message_update", message: event.partial, event });
      }
    }
  } catch (error) {
    // Providers must not throw; if one does, the failure still takes the single error path.
    final = failedMessage(state.model, signal.aborted ? "aborted" : "error", errorText(error), now());
  }
  final ??= failedMessage(state.model, "error", "the provider's stream ended without a final message", now());
  if (!started) emit({ type: "message_start", message: final });
  emit({ type: "message_end", message: final });
  return final;
}

function failedMessage(
  model: Model,
  stopReason: "error" | "aborted",
  errorMessage: string,
  timestamp: number,
): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason,
    errorMessage,
    timestamp,
  };
}
