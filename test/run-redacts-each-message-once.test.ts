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
    content: [
      { type: "thinking", thinking: `I will print ${SECRET}`, signature: `sig_${i}` },
      { type: "text", text: `Running it with ${SECRET}.` },
      { type: "toolCall", id: `call_${i}`, name: "bash", arguments: { command: `echo ${SECRET}` } },
    ],
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
    const callsPerTurn: number[] = [];
    for (let turn = 1; turn <= turns; turn++) {
      const before = deepCalls;
      for await (const _ of stream({
        model,
        systemPrompt: `key ${SECRET}`,
        messages,
        tools: [],
        thinkingLevel: "off",
        signal: new AbortController().signal,
      }));
      callsPerTurn.push(deepCalls - before);
      messages.push(assistant(turn), toolResult(turn));
    }

    // Only the two messages new since the last turn are redacted: the cost of a turn does not
    // grow with the transcript.
    expect(new Set(callsPerTurn.slice(1)).size).toBe(1);
    const last = seen.at(-1)!;
    expect(last.messages).toHaveLength(1 + 2 * (turns - 1));
    // Signed thinking goes back as it was; the model's text and tool calls are redacted.
    const sent = last.messages[1] as AssistantMessage;
    const original = messages[1] as AssistantMessage;
    expect(sent.content[0]).toBe(original.content[0]);
    expect(JSON.stringify(sent.content.slice(1))).toBe(
      JSON.stringify(original.content.slice(1)).replaceAll(SECRET, "***"),
    );
    expect(
      JSON.stringify(
        last.messages.map((m) => (m.role === "assistant" ? { ...m, content: m.content.slice(1) } : m)),
      ),
    ).not.toContain(SECRET);
    expect(last.systemPrompt).not.toContain(SECRET);
  });
});
