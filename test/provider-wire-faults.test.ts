import { afterEach, describe, expect, test } from "vitest";
import type { Model } from "../src/core/types.ts";
import { createProvider, type ProviderDeps } from "../src/providers/index.ts";
import { collect, mockEnv, streamRequest } from "./mock-llm/collect.ts";
import { closedPortUrl, type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

/**
 * What real servers and proxies send, on each wire format, through the real SDKs over HTTP:
 * keep-alives, empty deltas, drips, no usage, invalid SSE, HTML error pages, resets, refused
 * connections, and tool calls cut by the output-token limit.
 */
let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const formats = [
  { name: "anthropic", model: { provider: "anthropic", id: "claude-haiku-4-5" } as Model },
  { name: "openai-responses", model: { provider: "openai", id: "gpt-5-mini" } as Model },
  { name: "openai-chat", model: { provider: "openai-compatible", id: "qwen3:8b" } as Model },
];

const ok: MockReply = {
  text: "Füße ✓ 日本語 done.",
  toolCalls: [{ id: "tc_1", name: "write", arguments: { path: "a.txt", content: "héllo ✓\n" } }],
  usage: { input: 100, output: 20 },
};

async function run(model: Model, script: MockReply[], deps: ProviderDeps = {}) {
  mock = await startMockLlm({ script });
  const provider = createProvider(model, { env: mockEnv(mock.url), retryDelayMs: 5, ...deps });
  const result = await collect(provider.stream(streamRequest(model)));
  return {
    ...result,
    requests: mock.requests.length,
    retries: result.events.filter((e) => e.type === "retry"),
  };
}

function parts(message: { content: unknown[] }) {
  return message.content;
}

describe.each(formats)("$name", ({ model }) => {
  const expected = async () => parts((await run(model, [ok])).message);

  test("keep-alives (comments, events without data, pings) change nothing", async () => {
    const clean = await expected();
    const r = await run(model, [{ ...ok, pings: true }]);
    expect(r.requests).toBe(1);
    expect(parts(r.message)).toEqual(clean);
    expect(r.message.usage.input).toBe(100);
  });

  test("empty deltas change nothing and leave no empty parts", async () => {
    const clean = await expected();
    const r = await run(model, [{ ...ok, emptyDeltas: true }]);
    expect(parts(r.message)).toEqual(clean);
    expect(r.events.some((e) => "delta" in e && e.delta === "")).toBe(false);
  });

  test("a stream dripped two bytes at a time (multi-byte characters split) arrives whole", async () => {
    const clean = await expected();
    const r = await run(model, [{ ...ok, dripBytes: 2, chunkDelayMs: 0 }]);
    expect(parts(r.message)).toEqual(clean);
  });

  test("no usage at all: zeros, marked missing, cost unknown; the turn goes on", async () => {
    const r = await run(model, [{ ...ok, noUsage: true }]);
    expect(r.message.stopReason).toBe("toolUse");
    expect(r.message.usage).toMatchObject({ input: 0, output: 0, totalTokens: 0, costUnknown: true });
    expect(r.message.usageMissing).toBe(true);
  });

  test("invalid SSE is retried like a cut stream; exhausted, the message says what and who", async () => {
    const healed = await run(model, [{ ...ok, invalidSse: true }, ok]);
    expect(healed.requests).toBe(2);
    expect(healed.message.stopReason).toBe("toolUse");
    const r = await run(model, [{ ...ok, invalidSse: true }], { maxRetries: 2 });
    expect(r.requests).toBe(3);
    expect(r.message.stopReason).toBe("error");
    expect(r.message.errorMessage).toMatch(
      new RegExp(
        `^${model.provider} \\(transient\\): the stream is not the API's server-sent events: an event .*whose data is not JSON: .* \\(after 2 retries\\)$`,
      ),
    );
  });

  test("a proxy's HTML 502 page is retried; exhausted, the message names it without the HTML", async () => {
    const r = await run(model, [{ htmlStatus: 502 }], { maxRetries: 1 });
    expect(r.requests).toBe(2);
    expect(r.message.error).toMatchObject({ status: 502, kind: "transient" });
    expect(r.message.errorMessage).toBe(
      `${model.provider} 502 (transient): an HTML page instead of the API's answer (a proxy or gateway in between?): "502 Bad Gateway" (after 1 retry)`,
    );
  });

  test("an HTML page with status 200 is not taken for a stream: retried, then a clear error", async () => {
    const healed = await run(model, [{ htmlStatus: 200 }, ok]);
    expect(healed.requests).toBe(2);
    expect(healed.message.stopReason).toBe("toolUse");
    const r = await run(model, [{ htmlStatus: 200 }], { maxRetries: 0 });
    expect(r.message.errorMessage).toContain("an HTML page instead of the API's answer");
    expect(r.message.errorMessage).not.toContain("<html");
  });

  test("a spend limit reported inside the stream is not retried: kind spend", async () => {
    const r = await run(model, [
      { ...ok, streamError: { type: "insufficient_quota", message: "You exceeded your current quota." } },
      ok,
    ]);
    expect(r.requests).toBe(1);
    expect(r.message.error).toMatchObject({ kind: "spend", code: "insufficient_quota" });
  });

  test("a connection reset mid-stream is retried as a whole request", async () => {
    const r = await run(model, [{ ...ok, cut: "text", cutBy: "reset" }, ok]);
    expect(r.requests).toBe(2);
    expect(r.message.stopReason).toBe("toolUse");
    expect(parts(r.message)).toEqual(await expected());
  });

  test("connection refused: exactly maxRetries retries, counted in the message", async () => {
    const url = await closedPortUrl();
    const provider = createProvider(model, {
      env: { ...mockEnv(url), OPENAI_BASE_URL: `${url}/v1` },
      retryDelayMs: 5,
      maxRetries: 3,
    });
    const { events, message } = await collect(provider.stream(streamRequest(model)));
    expect(events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.attempt)).toEqual([
      1, 2, 3,
    ]);
    expect(message.error?.kind).toBe("connection");
    expect(message.errorMessage).toMatch(
      new RegExp(
        `^${model.provider} \\(connection\\): could not connect: .*ECONNREFUSED.* \\(after 3 retries\\)$`,
      ),
    );
  });

  test("a 5xx on every attempt: exactly maxRetries + 1 requests", async () => {
    const r = await run(model, [{ status: 503 }], { maxRetries: 3 });
    expect(r.requests).toBe(4);
    expect(r.retries).toHaveLength(3);
    expect(r.message.errorMessage).toMatch(/\(after 3 retries\)$/);
  });

  test("the output-token limit cutting a tool call gives stopReason length, the cut call unparsed", async () => {
    const r = await run(model, [
      {
        text: "Writing both.",
        stop: "length",
        truncateLastCall: 20,
        toolCalls: [
          { id: "w1", name: "write", arguments: { path: "a.txt", content: "short" } },
          { id: "w2", name: "write", arguments: { path: "b.txt", content: "x".repeat(200) } },
        ],
      },
    ]);
    expect(r.message.stopReason).toBe("length");
    const calls = r.message.content.filter((p) => p.type === "toolCall");
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ arguments: { path: "a.txt", content: "short" } });
    expect(calls[1]).toMatchObject({ arguments: {}, partialJson: '{"path":"b.txt","con' });
  });
});

test("openai-compatible: a server that ignores stream: true and answers one JSON document", async () => {
  const model: Model = { provider: "openai-compatible", id: "qwen3:8b" };
  const streamed = await run(model, [ok]);
  const r = await run(model, [{ ...ok, jsonDocument: true }]);
  expect(r.requests).toBe(1);
  expect(r.message.stopReason).toBe("toolUse");
  expect(parts(r.message)).toEqual(parts(streamed.message));
  expect(r.message.usage.input).toBe(100);
});

test("openai Responses: a response cut by a content filter is an error, none of its tool calls run", async () => {
  const model: Model = { provider: "openai", id: "gpt-5-mini" };
  const r = await run(model, [{ ...ok, incompleteReason: "content_filter" }]);
  expect(r.requests).toBe(1);
  expect(r.message.stopReason).toBe("error");
  expect(r.message.error).toMatchObject({ kind: "unknown", code: "content_filter" });
  expect(r.message.usage.input).toBe(100);
});
