import { z } from "zod";
import type { AssistantMessageEvent, StreamRequest } from "../../src/core/provider.ts";
import type {
  AgentMessage,
  AnyAgentTool,
  AssistantMessage,
  Model,
  ThinkingLevel,
} from "../../src/core/types.ts";

/** Drains a provider stream; `message` is the final done/error message. */
export async function collect(
  stream: AsyncIterable<AssistantMessageEvent>,
): Promise<{ events: AssistantMessageEvent[]; message: AssistantMessage }> {
  const events: AssistantMessageEvent[] = [];
  let message: AssistantMessage | undefined;
  for await (const event of stream) {
    events.push(event);
    if (event.type === "done" || event.type === "error") message = event.message;
  }
  if (!message) throw new Error("the stream ended without done/error");
  return { events, message };
}

/** A request with sensible defaults for provider tests. */
export function streamRequest(
  model: Model,
  overrides: {
    messages?: AgentMessage[];
    tools?: AnyAgentTool[];
    systemPrompt?: string;
    thinkingLevel?: ThinkingLevel;
    signal?: AbortSignal;
  } = {},
): StreamRequest {
  return {
    model,
    systemPrompt: overrides.systemPrompt ?? "You are a test.",
    messages: overrides.messages ?? [{ role: "user", content: "hello", timestamp: 1 }],
    tools: overrides.tools ?? [],
    thinkingLevel: overrides.thinkingLevel ?? "off",
    signal: overrides.signal ?? new AbortController().signal,
  };
}

/** Environment pointing all three SDK providers at the mock server. */
export function mockEnv(url: string): NodeJS.ProcessEnv {
  return {
    ANTHROPIC_API_KEY: "test-anthropic-key",
    OPENAI_API_KEY: "test-openai-key",
    ANTHROPIC_BASE_URL: url,
    OPENAI_BASE_URL: `${url}/v1`,
  };
}

/** A `read` tool that only has to be offered to the model (providers never run tools). */
export const readTool: AnyAgentTool = {
  name: "read",
  label: "Read",
  description: "Read a file",
  parameters: z.object({ path: z.string() }),
  execute: async () => ({ content: [{ type: "text", text: "" }], details: {} }),
};
