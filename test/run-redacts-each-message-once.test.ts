import { describe, expect, test } from "vitest";
import type { StreamFunction, StreamRequest } from "../src/core/provider.ts";
import type { AgentMessage, AssistantMessage, Model } from "../src/core/types.ts";
import { emptyUsage } from "../src/core/usage.ts";
import { createRedactor } from "../src/output/index.ts";
import { redactRequests } from "../src/run/redact-requests.ts";

const SECRET = "sk-ant-redact-me-0123456789";
const model: Model = { provider: "anthropic", id: "claude-sonnet-4-6" };

function toolResult(i: number): AgentMessage {
  return {
    role: "toolResult",
    toolCallId: `call_${i}`,
    toolName: "bash",
    content: [{ type: "text", text: `turn ${i} printed ${SECRET}` }],
    details: {},
    isError: false,
    timestamp: i,
  };
}

function assistant(i: number): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "toolCall", id: `call_${i}`, name: "bash", arguments: { command: "env" } }],
    provider: "anthropic",
    model: model.id,
    usage: emptyUsage(),
    stopReason: "toolUse",
    timestamp: i,
  };
}

describe("requests to the model are redacted", () => {
  test("each message once across turns, not the whole transcript on every turn", async () => {
    const real = createRedactor({ env: { ANTHROPIC_API_KEY: SECRET } });
    let deepCalls = 0;
    const redactor = {
      redact: real.redact,
      redactDeep: <T>(value: T): T => {
        deepCalls++;
        return real.redactDeep(value);
      },
    };
    const seen: StreamRequest[] = [];
    const inner: StreamFunction = async function* (request) {
      seen.push(request);
      yield { type: "done", message: assistant(0) };
    };
    const stream = redactRequests(inner, redactor);
    const messages: AgentMessage[] = [{ role: "user", content: `use ${SECRET}`, timestamp: 0 }];
    const turns = 20;
    for (let turn = 1; turn <= turns; turn++) {
      for await (const _ of stream({
        model,
        systemPrompt: `key ${SECRET}`,
        messages,
        tools: [],
        thinkingLevel: "off",
        signal: new AbortController().signal,
      }));
      messages.push(assistant(turn), toolResult(turn));
    }

    // The user prompt and one tool result per earlier turn: 1 + 19, each redacted once.
    expect(deepCalls).toBe(turns);
    const last = seen.at(-1)!;
    expect(last.messages).toHaveLength(1 + 2 * (turns - 1));
    expect(JSON.stringify(last.messages)).not.toContain(SECRET);
    expect(last.systemPrompt).not.toContain(SECRET);
    // The model's own messages go as they were (signed thinking stays valid).
    expect(last.messages[1]).toBe(messages[1]);
  });
});
