import { afterEach, describe, expect, test } from "vitest";
import type { Model } from "../src/core/types.ts";
import { isContextLengthError } from "../src/providers/context-length.ts";
import { createProvider } from "../src/providers/index.ts";
import { collect, mockEnv, streamRequest } from "./mock-llm/collect.ts";
import type { ChatOverflowStyle } from "./mock-llm/context-window.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

/**
 * Each wire format's context-length refusal, as the real servers send it, through the real SDKs
 * over HTTP: classified `context_length` (never retried: the same request would be refused again),
 * from the error code first and the status with the text where the code is generic.
 */
let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const CASES: Array<[string, Model, ChatOverflowStyle?]> = [
  [
    "anthropic: 400 invalid_request_error, prompt is too long",
    { provider: "anthropic", id: "claude-haiku-5-5" },
  ],
  ["responses: context_length_exceeded in the stream", { provider: "openai", id: "gpt-5.4-mini" }],
  ["chat, OpenAI: 400 context_length_exceeded", { provider: "openai-compatible", id: "qwen3:8b" }, "openai"],
  [
    "chat, vLLM: 400 BadRequestError, maximum context length",
    { provider: "openai-compatible", id: "qwen3:8b" },
    "vllm",
  ],
  [
    "chat, llama.cpp: 400 exceed_context_size_error",
    { provider: "openai-compatible", id: "qwen3:8b" },
    "llamacpp",
  ],
];

describe.each(CASES)("%s", (_name, model, chatOverflow) => {
  test("is a context_length error, sent once", async () => {
    mock = await startMockLlm({
      script: [{ text: "never" }],
      contextWindow: 5,
      ...(chatOverflow && { chatOverflow }),
    });
    const provider = createProvider(model, { env: mockEnv(mock.url), retryDelayMs: 1 });
    const { message } = await collect(provider.stream(streamRequest(model)));
    expect(message.stopReason).toBe("error");
    expect(message.error?.kind).toBe("context_length");
    expect(mock.requests).toHaveLength(1);
  });
});

describe("isContextLengthError", () => {
  test.for([
    [
      {
        status: 400,
        code: "invalid_request_error",
        message: "prompt is too long: 208310 tokens > 200000 maximum",
      },
      true,
    ],
    [
      {
        status: 400,
        code: "invalid_request_error",
        message: "input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648",
      },
      true,
    ],
    [{ status: 400, code: "invalid_request_error", message: "max_tokens: must be positive" }, false],
    [{ status: 500, code: "api_error", message: "prompt is too long" }, false],
    [
      {
        status: 429,
        code: "rate_limit_exceeded",
        message: "This model's maximum context length is 4096 tokens",
      },
      false,
    ],
    [
      { code: "context_length_exceeded", message: "Your input exceeds the context window of this model." },
      true,
    ],
    [
      {
        status: 413,
        message:
          "This endpoint's maximum context length is 32768 tokens. However, you requested about 42832 tokens",
      },
      true,
    ],
    [
      {
        status: 400,
        code: "BadRequestError",
        message: "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
      },
      true,
    ],
  ] as const)("%j → %s", ([facts, expected]) => {
    expect(isContextLengthError(facts)).toBe(expected);
  });
});
