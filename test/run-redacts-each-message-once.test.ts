import { describe, expect, test } from "vitest";
import type { StreamFunction, StreamRequest } from "../src/core/provider.ts";
import type { AgentMessage, AssistantMessage, Model, ToolResultMessage } from "../src/core/types.ts";
import { emptyUsage } from "../src/core/usage.ts";
import { createRedactor } from "../src/output/index.ts";
import { createMessageRedactions } from "../src/run/message-redactions.ts";
import { redactRequests } from "../src/run/redact-requests.ts";
import { transcriptMessages } from "../src/run/resume/transcript-file.ts";

const SECRET = "sk-ant-redact-me-0123456789";
const model: Model = { provider: "anthropic", id: "claude-sonnet-4-6" };

function toolResult(i: number): ToolResultMessage {
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
    const { redactor, calls } = counting();
    const seen: StreamRequest[] = [];
    const inner: StreamFunction = async function* (request) {
      seen.push(request);
      yield { type: "done", message: assistant(0) };
    };
    const stream = redactRequests(inner, redactor, createMessageRedactions(redactor));
    const messages: AgentMessage[] = [{ role: "user", content: `use ${SECRET}`, timestamp: 0 }];
    const turns = 20;
    const callsPerTurn: number[] = [];
    for (let turn = 1; turn <= turns; turn++) {
      const before = calls.count;
      for await (const _ of stream({
        model,
        systemPrompt: `key ${SECRET}`,
        messages,
        tools: [],
        thinkingLevel: "off",
        signal: new AbortController().signal,
      }));
      callsPerTurn.push(calls.count - before);
      messages.push(assistant(turn), toolResult(turn));
    }

    // Only the two messages new since the last turn are redacted: the cost of a turn does not
    // grow with the transcript.
    expect(new Set(callsPerTurn.slice(1)).size).toBe(1);
    expect(callsPerTurn[1]).toBeGreaterThan(1);
    // The same copy each time: a tool result's, whose details are redacted for requests only, too.
    expect(seen[2]?.messages[2]?.role).toBe("toolResult");
    expect(seen[3]?.messages[2]).toBe(seen[2]?.messages[2]);
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

  test("transcript.json reuses the requests' copies: at the end only what no request carried is redacted", async () => {
    const { redactor, calls } = counting();
    const used = createMessageRedactions(redactor);
    const stream = redactRequests(async function* () {}, redactor, used);
    const messages: AgentMessage[] = [{ role: "user", content: `use ${SECRET}`, timestamp: 0 }];
    for (let turn = 1; turn <= 10; turn++) {
      messages.push(withoutThinking(assistant(turn)), toolResult(turn));
      for await (const _ of stream({
        model,
        systemPrompt: "s",
        messages,
        tools: [],
        thinkingLevel: "off",
        signal: new AbortController().signal,
      }));
    }
    // The final answer goes in no request.
    const final = withoutThinking(assistant(11));
    messages.push(final);

    const before = calls.count;
    const reused = transcriptMessages(messages, used);
    const atEnd = calls.count - before;
    const fresh = createMessageRedactions(counting().redactor);
    const { redactor: alone, calls: aloneCalls } = counting();
    transcriptMessages([final], createMessageRedactions(alone));
    expect(atEnd).toBe(aloneCalls.count);
    expect(reused).toEqual(transcriptMessages(messages, fresh));
    expect(reused.json).not.toContain(SECRET);
    expect(reused.redacted).toBe(true);
  });

  test("transcript.json: thinking redacted (a changed block loses its signature), tool results without details", () => {
    const redactions = createMessageRedactions(createRedactor({ env: { ANTHROPIC_API_KEY: SECRET } }));
    const clean: AssistantMessage = {
      ...assistant(1),
      content: [{ type: "thinking", thinking: "nothing secret here", signature: "sig_clean" }],
    };
    const result: AgentMessage = { ...toolResult(2), details: { exitCode: 0, note: `saw ${SECRET}` } };
    const messages: AgentMessage[] = [assistant(1), clean, result];
    const { json, redacted } = transcriptMessages(messages, redactions);
    const parsed = JSON.parse(json) as AgentMessage[];
    expect(json).not.toContain(SECRET);
    expect(redacted).toBe(true);
    expect((parsed[0] as AssistantMessage).content[0]).toEqual({
      type: "thinking",
      thinking: "I will print ***",
    });
    expect((parsed[1] as AssistantMessage).content[0]).toEqual(clean.content[0]);
    expect(parsed[2]).toEqual({
      ...result,
      content: [{ type: "text", text: "turn 2 printed ***" }],
      details: {},
    });
    // Keys in the message's own order, as JSON.stringify of the message would put them.
    expect(Object.keys(parsed[2]!)).toEqual(Object.keys(result));
    // The request keeps the tool result's details, redacted, and the signed thinking as it was.
    expect(redactions.forRequest(result)).toEqual({
      ...parsed[2],
      details: { exitCode: 0, note: "saw ***" },
    });
    expect((redactions.forRequest(messages[0]!) as AssistantMessage).content[0]).toBe(
      (messages[0] as AssistantMessage).content[0],
    );

    const plain = transcriptMessages([clean, { role: "user", content: "hello", timestamp: 0 }], redactions);
    expect(plain.redacted).toBe(false);
  });

  test("a secret added after a message was redacted is redacted from it on its next use", () => {
    const redactor = createRedactor({ env: { ANTHROPIC_API_KEY: SECRET } });
    const redactions = createMessageRedactions(redactor);
    const later = "mcp-token-added-later-42";
    const message: AgentMessage = { role: "user", content: `${SECRET} and ${later}`, timestamp: 0 };
    expect(redactions.forRequest(message)).toMatchObject({ content: `*** and ${later}` });
    redactor.add(later);
    expect(redactions.forRequest(message)).toMatchObject({ content: "*** and ***" });
    expect(redactions.forTranscript(message).json).not.toContain(later);
  });
});

/** A real redactor whose `redact` calls are counted. */
function counting() {
  const real = createRedactor({ env: { ANTHROPIC_API_KEY: SECRET } });
  const calls = { count: 0 };
  const redactor = {
    redact: (text: string) => {
      calls.count++;
      return real.redact(text);
    },
    get version() {
      return real.version;
    },
  };
  return { redactor, calls };
}

function withoutThinking(message: AssistantMessage): AssistantMessage {
  return { ...message, content: message.content.filter((part) => part.type !== "thinking") };
}
