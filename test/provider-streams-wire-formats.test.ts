import { afterEach, describe, expect, test } from "vitest";
import type { AgentMessage, Model } from "../src/core/types.ts";
import { createProvider } from "../src/providers/index.ts";
import { collect, mockEnv, readTool, streamRequest } from "./mock-llm/collect.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const cases = [
  {
    name: "anthropic",
    model: { provider: "anthropic", id: "claude-haiku-4-5" } as Model,
    path: "/v1/messages",
  },
  {
    name: "openai (Responses)",
    model: { provider: "openai", id: "gpt-5-mini" } as Model,
    path: "/v1/responses",
  },
  {
    name: "openai (Chat)",
    model: { provider: "openai", id: "gpt-5-mini", api: "chat" } as Model,
    path: "/v1/chat/completions",
  },
  {
    name: "openai-compatible",
    model: { provider: "openai-compatible", id: "qwen3:8b" } as Model,
    path: "/v1/chat/completions",
  },
];

describe.each(cases)("$name streams a full turn through the real SDK", ({ model, path }) => {
  test("text, thinking and a tool call arrive as deltas; usage is what the server reported", async () => {
    mock = await startMockLlm({
      script: [
        {
          thinking: "The user wants the README.",
          thinkingSignature: "sig-123",
          text: "Reading the README now.",
          toolCalls: [
            { id: "tc_1", name: "read", arguments: { path: "README.md", note: "a longer value to stream" } },
          ],
          usage: {
            input: 1200,
            output: 85,
            cacheRead: 300,
            cacheWrite: model.provider === "anthropic" ? 50 : 0,
          },
        },
      ],
    });
    const provider = createProvider(model, { env: mockEnv(mock.url), maxRetries: 0 });
    const { events, message } = await collect(provider.stream(streamRequest(model, { tools: [readTool] })));

    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0]?.path).toBe(path);
    expect(message.stopReason).toBe("toolUse");
    expect(message.errorMessage).toBeUndefined();
    const text = message.content.find((p) => p.type === "text");
    expect(text).toEqual({ type: "text", text: "Reading the README now." });
    const call = message.content.find((p) => p.type === "toolCall");
    expect(call).toEqual({
      type: "toolCall",
      id: "tc_1",
      name: "read",
      arguments: { path: "README.md", note: "a longer value to stream" },
    });
    const thinking = message.content.find((p) => p.type === "thinking");
    expect(thinking?.type === "thinking" && thinking.thinking).toBe("The user wants the README.");
    expect(events.filter((e) => e.type === "toolcall_delta").length).toBeGreaterThan(2);
    expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(1);
    expect(events[0]?.type).toBe("start");
    expect(events.at(-1)?.type).toBe("done");
    expect(message.usage).toMatchObject({
      input: 1200,
      output: 85,
      cacheRead: 300,
      cacheWrite: model.provider === "anthropic" ? 50 : 0,
      totalTokens: 1200 + 85 + 300 + (model.provider === "anthropic" ? 50 : 0),
    });
  });

  test("a text-only reply stops with 'stop'; a cut-off one with 'length'", async () => {
    mock = await startMockLlm({
      script: [
        { text: "Done.", usage: { input: 10, output: 2 } },
        { text: "Partial", stop: "length", usage: { input: 10, output: 2 } },
      ],
    });
    const provider = createProvider(model, { env: mockEnv(mock.url), maxRetries: 0 });
    const first = await collect(provider.stream(streamRequest(model)));
    const second = await collect(provider.stream(streamRequest(model)));
    expect(first.message.stopReason).toBe("stop");
    expect(first.message.content).toEqual([{ type: "text", text: "Done." }]);
    expect(second.message.stopReason).toBe("length");
  });
});

describe("pricing on the streamed message", () => {
  test("a known model is priced from the table; an unknown one is marked unknown, not 0", async () => {
    mock = await startMockLlm({
      script: [{ text: "ok", usage: { input: 1_000_000, output: 1_000_000, cacheRead: 1_000_000 } }],
    });
    const env = mockEnv(mock.url);
    const known = await collect(
      createProvider({ provider: "anthropic", id: "claude-haiku-4-5" }, { env }).stream(
        streamRequest({ provider: "anthropic", id: "claude-haiku-4-5" }),
      ),
    );
    expect(known.message.usage.cost).toMatchObject({ input: 1, output: 5, cacheRead: 0.1, cacheWrite: 0 });
    expect(known.message.usage.cost.total).toBeCloseTo(6.1, 10);
    expect(known.message.usage.costUnknown).toBeUndefined();

    const unknownModel: Model = { provider: "openai-compatible", id: "qwen3:8b" };
    const unknown = await collect(createProvider(unknownModel, { env }).stream(streamRequest(unknownModel)));
    expect(unknown.message.usage.costUnknown).toBe(true);
    expect(unknown.message.usage.totalTokens).toBe(3_000_000);

    const priced: Model = {
      ...unknownModel,
      pricing: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 0 },
    };
    const override = await collect(createProvider(priced, { env }).stream(streamRequest(priced)));
    expect(override.message.usage.cost.total).toBeCloseTo(3.5, 10);
  });
});

describe("history sent back on the next turn", () => {
  const history = (provider: string): AgentMessage[] => [
    { role: "user", content: "look at the screenshot", timestamp: 1 },
    {
      role: "assistant",
      provider,
      model: "m",
      content: [
        { type: "thinking", thinking: "I should read it.", signature: "sig-abc" },
        { type: "text", text: "Reading." },
        { type: "toolCall", id: "toolu_1", name: "read", arguments: { path: "shot.png" } },
      ],
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "toolUse",
      timestamp: 2,
    },
    {
      role: "toolResult",
      toolCallId: "toolu_1",
      toolName: "read",
      content: [
        { type: "text", text: "an image" },
        { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
      ],
      details: {},
      isError: false,
      timestamp: 3,
    },
  ];

  test("anthropic: thinking signature, tool_use, image tool_result and cache_control breakpoints", async () => {
    mock = await startMockLlm({ script: [{ text: "It is a cat." }] });
    const model: Model = { provider: "anthropic", id: "claude-haiku-4-5", maxOutputTokens: 1000 };
    await collect(
      createProvider(model, { env: mockEnv(mock.url) }).stream(
        streamRequest(model, { messages: history("anthropic"), tools: [readTool], thinkingLevel: "medium" }),
      ),
    );
    const body = mock.requests[0]?.body as Record<string, unknown>;
    const headers = mock.requests[0]?.headers ?? {};
    expect(`${headers["x-api-key"] ?? ""} ${headers.authorization ?? ""}`).toContain("test-anthropic-key");
    expect(body.system).toEqual([
      { type: "text", text: "You are a test.", cache_control: { type: "ephemeral" } },
    ]);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 10_000 });
    expect(body.max_tokens).toBe(14_096);
    expect((body.tools as { cache_control?: unknown }[])[0]?.cache_control).toEqual({ type: "ephemeral" });
    const messages = body.messages as { role: string; content: Record<string, unknown>[] }[];
    expect(messages[1]?.content).toEqual([
      { type: "thinking", thinking: "I should read it.", signature: "sig-abc" },
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_1", name: "read", input: { path: "shot.png" } },
    ]);
    expect(messages[2]?.content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_1",
      is_error: false,
      cache_control: { type: "ephemeral" },
      content: [
        { type: "text", text: "an image" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "aGVsbG8=" } },
      ],
    });
    expect(messages[0]?.content.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
  });

  test("openai Responses: function_call, image output, reasoning effort from the thinking level", async () => {
    mock = await startMockLlm({ script: [{ text: "A cat." }] });
    const model: Model = { provider: "openai", id: "gpt-5-mini", maxOutputTokens: 500, temperature: 0.2 };
    await collect(
      createProvider(model, { env: mockEnv(mock.url) }).stream(
        streamRequest(model, { messages: history("openai"), tools: [readTool], thinkingLevel: "high" }),
      ),
    );
    const body = mock.requests[0]?.body as Record<string, unknown>;
    expect(mock.requests[0]?.headers.authorization).toBe("Bearer test-openai-key");
    expect(body).toMatchObject({
      instructions: "You are a test.",
      reasoning: { effort: "high", summary: "auto" },
      max_output_tokens: 500,
      temperature: 0.2,
      store: false,
    });
    const input = body.input as Record<string, unknown>[];
    expect(input).toContainEqual({
      type: "function_call",
      call_id: "toolu_1",
      name: "read",
      arguments: '{"path":"shot.png"}',
    });
    expect(input).toContainEqual({
      type: "function_call_output",
      call_id: "toolu_1",
      output: [
        { type: "input_text", text: "an image" },
        { type: "input_image", image_url: "data:image/png;base64,aGVsbG8=", detail: "auto" },
      ],
    });
  });

  test("chat: tool_calls, tool message, image forwarded as a user message", async () => {
    mock = await startMockLlm({ script: [{ text: "A cat." }] });
    const model: Model = { provider: "openai-compatible", id: "llama", baseUrl: `${"http://127.0.0.1"}` };
    const compat: Model = { ...model, baseUrl: `${mock.url}/v1`, maxOutputTokens: 300 };
    await collect(
      createProvider(compat, { env: {} }).stream(
        streamRequest(compat, { messages: history("openai"), tools: [readTool], thinkingLevel: "xhigh" }),
      ),
    );
    const body = mock.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      max_tokens: 300,
      reasoning_effort: "high",
      stream_options: { include_usage: true },
    });
    const messages = body.messages as Record<string, unknown>[];
    expect(messages[0]).toEqual({ role: "system", content: "You are a test." });
    expect(messages[2]).toEqual({
      role: "assistant",
      content: "Reading.",
      tool_calls: [
        { id: "toolu_1", type: "function", function: { name: "read", arguments: '{"path":"shot.png"}' } },
      ],
    });
    expect(messages[3]).toEqual({ role: "tool", tool_call_id: "toolu_1", content: "an image" });
    expect(messages[4]).toMatchObject({ role: "user" });
    expect(JSON.stringify(messages[4])).toContain("data:image/png;base64,aGVsbG8=");
  });
});
