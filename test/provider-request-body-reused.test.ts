import { afterEach, describe, expect, test, vi } from "vitest";
import { emptyUsage } from "../src/core/index.ts";
import type { AgentMessage, AssistantMessage, Model } from "../src/core/types.ts";
import { buildAnthropicParams } from "../src/providers/anthropic-request.ts";
import { buildChatBody, buildResponsesBody, createProvider } from "../src/providers/index.ts";
import { bodyBytes, itemBytes } from "../src/providers/wire-json.ts";
import { collect, mockEnv, readTool, streamRequest } from "./mock-llm/collect.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

let mock: MockLlm | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await mock?.close();
  mock = undefined;
});

function assistant(provider: string, content: AssistantMessage["content"]): AssistantMessage {
  return {
    role: "assistant",
    content,
    provider,
    model: "m",
    usage: emptyUsage(),
    stopReason: "toolUse",
    timestamp: 2,
  };
}

function toolResult(id: string, text: string, image = false): AgentMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: "read",
    content: [
      { type: "text", text },
      ...(image ? [{ type: "image" as const, data: "aGVsbG8=", mimeType: "image/png" }] : []),
    ],
    details: {},
    isError: false,
    timestamp: 3,
  };
}

/** A conversation of every kind of message, `turns` tool turns long, each result `resultText`. */
function conversation(
  provider: string,
  turns: number,
  resultText = "line 1\nline 2 — ünïcödé ✓",
): AgentMessage[] {
  const messages: AgentMessage[] = [{ role: "user", content: 'Fix the "bug".\n', timestamp: 1 }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push(
      assistant(provider, [
        { type: "thinking", thinking: `step ${turn}`, signature: provider === "openai" ? "" : `sig-${turn}` },
        { type: "text", text: `Turn ${turn}.` },
        { type: "toolCall", id: `call_${turn}_a`, name: "read", arguments: { path: `a${turn}.txt` } },
        { type: "toolCall", id: `call_${turn}_b`, name: "read", arguments: { path: `b${turn}.txt` } },
      ]),
      toolResult(`call_${turn}_a`, resultText, turn === 0),
      toolResult(`call_${turn}_b`, ""),
    );
  }
  return messages;
}

const wires = [
  {
    name: "anthropic",
    model: { provider: "anthropic", id: "claude-haiku-4-5" } as Model,
    build: (messages: AgentMessage[], model: Model) =>
      buildAnthropicParams(streamRequest(model, { messages, tools: [readTool] })),
  },
  {
    name: "openai (Responses)",
    model: { provider: "openai", id: "gpt-5-mini" } as Model,
    build: (messages: AgentMessage[], model: Model) =>
      buildResponsesBody(streamRequest(model, { messages, tools: [readTool] })),
  },
  {
    name: "openai (Chat)",
    model: { provider: "openai", id: "gpt-5-mini", api: "chat" } as Model,
    build: (messages: AgentMessage[], model: Model) =>
      buildChatBody(streamRequest(model, { messages, tools: [readTool] }), false),
  },
];

describe.each(wires)("$name: each request's body, with earlier messages' JSON reused", ({ model, build }) => {
  test("is byte for byte what serialising the request afresh gives, turn after turn", async () => {
    mock = await startMockLlm({ script: [{ text: "ok" }] });
    const provider = createProvider(model, { env: mockEnv(mock.url), maxRetries: 0 });
    const messages = conversation(model.provider, 1);
    const expected: string[] = [];
    for (let turn = 1; turn <= 4; turn++) {
      const request = streamRequest(model, { messages: [...messages], tools: [readTool] });
      const { message } = await collect(provider.stream(request));
      expect(message.stopReason).toBe("stop");
      // Fresh copies of the messages: nothing kept from an earlier request can reach this text.
      expected.push(JSON.stringify(build(structuredClone(messages), model)));
      messages.push(...conversation(model.provider, turn + 1).slice(-3));
    }
    expect(new Set(mock.requests.map((request) => request.headers["content-type"]))).toEqual(
      new Set(["application/json"]),
    );
    expect(mock.requests.map((request) => request.bytes)).toEqual(
      expected.map((text) => Buffer.byteLength(text)),
    );
    expect(mock.requests.map((request) => request.body)).toEqual(expected.map((text) => JSON.parse(text)));
  });

  test("a request serialises only what the conversation gained since the one before", async () => {
    mock = await startMockLlm({ script: [{ text: "ok" }], recordBodies: false });
    const provider = createProvider(model, { env: mockEnv(mock.url), maxRetries: 0 });
    // One megabyte of tool output early in the conversation.
    const messages = conversation(model.provider, 2, "x".repeat(1024 * 1024));
    await collect(provider.stream(streamRequest(model, { messages: [...messages], tools: [readTool] })));
    messages.push(...conversation(model.provider, 3, "small").slice(-3));
    const stringify = JSON.stringify;
    let chars = 0;
    vi.spyOn(JSON, "stringify").mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
      const text = stringify(...args);
      chars += text?.length ?? 0;
      return text;
    });
    const { message } = await collect(
      provider.stream(streamRequest(model, { messages: [...messages], tools: [readTool] })),
    );
    vi.restoreAllMocks();
    expect(message.stopReason).toBe("stop");
    expect(mock.requests[1]?.bytes).toBeGreaterThan(2 * 1024 * 1024);
    expect(chars).toBeLessThan(64 * 1024);
  });
});

describe("anthropic's cache breakpoints move with the conversation", () => {
  test("a block marked while among the last user turns is sent unmarked once it is not", () => {
    const model = { provider: "anthropic", id: "claude-haiku-4-5" } as Model;
    const messages = conversation("anthropic", 1);
    const first = buildAnthropicParams(streamRequest(model, { messages }));
    messages.push(...conversation("anthropic", 4).slice(-9));
    const later = buildAnthropicParams(streamRequest(model, { messages }));
    const marked = (params: typeof first) =>
      params.messages.flatMap((message, index) =>
        Array.isArray(message.content) && message.content.some((block) => "cache_control" in block)
          ? [index]
          : [],
      );
    expect(marked(first)).toEqual([0, 2]);
    expect(marked(later)).toEqual([later.messages.length - 3, later.messages.length - 1]);
  });
});

describe("bodyBytes", () => {
  test("gives JSON.stringify's bytes, fields JSON cannot hold left out, whatever the list holds", () => {
    const items = [{ a: 1 }, { text: 'ünïcödé \u2028 "quoted"' }, { nested: [1, { b: null }] }];
    const bodies = [
      { model: "m", messages: items, stream: true, nothing: undefined, fn: () => 1, after: { x: [] } },
      { messages: [], model: "m" },
      { first: undefined, messages: items },
      { model: "m", messages: "not a list" },
    ];
    for (const body of bodies) {
      expect(bodyBytes(body as Record<string, unknown>, "messages").toString()).toBe(JSON.stringify(body));
    }
  });

  test("an item's bytes are made once and kept in a buffer of their own", () => {
    const item = { text: "short" };
    const bytes = itemBytes(item);
    expect(itemBytes(item)).toBe(bytes);
    expect(bytes.toString()).toBe(JSON.stringify(item));
    // Not a slice of Node's shared pool, which a kept item would hold on to whole.
    expect(bytes.buffer.byteLength).toBe(bytes.length);
  });
});
