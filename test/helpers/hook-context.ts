import type { AssistantMessage, BeforeToolCallContext } from "../../src/core/index.ts";
import { emptyUsage } from "../../src/core/index.ts";

/** The context a `beforeToolCall` hook gets for one call, with an empty transcript. */
export function beforeToolCallContext(
  name: string,
  args: Record<string, unknown>,
  id = "call_1",
): BeforeToolCallContext {
  const assistantMessage: AssistantMessage = {
    role: "assistant",
    content: [],
    provider: "anthropic",
    model: "m",
    usage: emptyUsage(),
    stopReason: "toolUse",
    timestamp: 0,
  };
  return {
    assistantMessage,
    toolCall: { type: "toolCall", id, name, arguments: args },
    args,
    context: { systemPrompt: "", messages: [], tools: [] },
  };
}
