import { afterEach, describe, expect, test } from "vitest";
import type { Model } from "../src/core/types.ts";
import { createProvider, type ProviderDeps } from "../src/providers/index.ts";
import { collect, mockEnv, streamRequest } from "./mock-llm/collect.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const formats = [
  { name: "anthropic", model: { provider: "anthropic", id: "claude-haiku-4-5" } as Model },
  { name: "openai-responses", model: { provider: "openai", id: "gpt-5-mini" } as Model },
  { name: "openai-chat", model: { provider: "openai", id: "gpt-5-mini", api: "chat" } as Model },
];

const ok: MockReply = {
  text: "All good.",
  toolCalls: [{ id: "tc_9", name: "bash", arguments: { command: "npm run lint -- --fix" } }],
  usage: { input: 100, output: 20 },
};

async function run(model: Model, script: MockReply[], deps: ProviderDeps = {}) {
  mock = await startMockLlm({ script });
  const provider = createProvider(model, { env: mockEnv(mock.url), retryDelayMs: 10, ...deps });
  const started = Date.now();
  const result = await collect(provider.stream(streamRequest(model)));
  return { ...result, elapsedMs: Date.now() - started, requests: mock.requests.length };
}

describe.each(formats)("$name faults", ({ name, model }) => {
  test("429 with retry-after is retried after the server's delay", async () => {
    const r = await run(model, [{ status: 429, retryAfter: 1 }, ok]);
    expect(r.message.stopReason).toBe("toolUse");
    expect(r.requests).toBe(2);
    expect(r.elapsedMs).toBeGreaterThanOrEqual(900);
    const retries = r.events.filter((e) => e.type === "retry");
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({
      attempt: 1,
      delayMs: 1000,
      reason: expect.stringMatching(new RegExp(`^${model.provider} 429 \\(transient\\): `)),
    });
  });

  test.for([500, 529])("%i is retried and the second answer wins", async (status) => {
    const r = await run(model, [{ status }, ok]);
    expect(r.message.stopReason).toBe("toolUse");
    expect(r.message.usage.input).toBe(100);
    expect(r.requests).toBe(2);
  });

  test("a connection reset before the response is retried", async () => {
    const r = await run(model, [{ reset: true }, ok]);
    expect(r.message.stopReason).toBe("toolUse");
    expect(r.requests).toBe(2);
  });

  test("retries exhausted: one error naming provider, status and message; kind transient", async () => {
    const r = await run(model, [{ status: 503, errorMessage: "upstream is down" }], { maxRetries: 1 });
    expect(r.requests).toBe(2);
    expect(r.message.stopReason).toBe("error");
    expect(r.message.error).toMatchObject({ provider: model.provider, status: 503, kind: "transient" });
    expect(r.message.errorMessage).toContain(`${model.provider} 503`);
    expect(r.message.errorMessage).toContain("upstream is down");
    expect(r.message.errorMessage).toMatch(/\(after 1 retry\)$/);
    expect(r.events.filter((e) => e.type === "error")).toHaveLength(1);
    // The SDK's one retry is announced; the give-up after it is not.
    expect(r.events.filter((e) => e.type === "retry")).toHaveLength(1);
  });

  test("401 is not retried: kind auth", async () => {
    const r = await run(model, [{ status: 401 }, ok]);
    expect(r.requests).toBe(1);
    expect(r.message.error).toMatchObject({ kind: "auth", status: 401 });
  });

  test("a spend limit is not retried, even as a 429: kind spend", async () => {
    const spend: MockReply =
      name === "anthropic"
        ? {
            status: 400,
            errorType: "invalid_request_error",
            errorMessage: "Your credit balance is too low to access the API.",
          }
        : { status: 429, errorType: "insufficient_quota", errorMessage: "You exceeded your current quota." };
    const r = await run(model, [spend, ok]);
    expect(r.requests).toBe(1);
    expect(r.message.error?.kind).toBe("spend");
  });

  test("a stream cut mid tool call is retried as a whole request; billed usage is kept", async () => {
    const r = await run(model, [{ ...ok, cut: "tool" }, ok]);
    expect(r.requests).toBe(2);
    expect(r.message.stopReason).toBe("toolUse");
    const calls = r.message.content.filter((p) => p.type === "toolCall");
    expect(calls).toEqual([
      { type: "toolCall", id: "tc_9", name: "bash", arguments: { command: "npm run lint -- --fix" } },
    ]);
    expect(r.events.some((e) => e.type === "retry")).toBe(true);
    // Anthropic reports input usage in message_start, before the cut; the others only at the end.
    expect(r.message.usage.input).toBe(name === "anthropic" ? 200 : 100);
  });

  test("malformed tool-call JSON becomes a parseError the core turns into a correctable error", async () => {
    const r = await run(model, [
      { toolCalls: [{ id: "bad_1", name: "edit", argumentsRaw: '{"path": "a.ts", "old": ' }] },
    ]);
    expect(r.requests).toBe(1);
    const call = r.message.content.find((p) => p.type === "toolCall");
    expect(call).toMatchObject({
      id: "bad_1",
      name: "edit",
      arguments: {},
      partialJson: '{"path": "a.ts", "old": ',
    });
    expect(call?.type === "toolCall" && call.parseError).toMatch(/JSON/);
    expect(r.message.stopReason).toBe("toolUse");
  });

  test("a slow first byte hits the request timeout and is retried", async () => {
    const r = await run(model, [{ ...ok, firstByteDelayMs: 3000 }, ok], { requestTimeoutMs: 400 });
    expect(r.message.stopReason).toBe("toolUse");
    expect(r.requests).toBe(2);
    expect(r.elapsedMs).toBeLessThan(2900);
  });

  test("a slow first byte with no retries left ends as a timeout", async () => {
    const r = await run(model, [{ ...ok, firstByteDelayMs: 3000 }], { requestTimeoutMs: 300, maxRetries: 0 });
    expect(r.message.error?.kind).toBe("timeout");
  });

  test("a stream that goes quiet after the headers is aborted by the idle timeout and retried", async () => {
    const r = await run(model, [{ ...ok, stallMs: 5000 }, ok], { idleTimeoutMs: 300 });
    expect(r.requests).toBe(2);
    expect(r.message.stopReason).toBe("toolUse");
    const retry = r.events.find((e) => e.type === "retry");
    expect(retry?.type === "retry" && retry.reason).toContain("no data for 300 ms");
    expect(r.elapsedMs).toBeLessThan(4500);
  });

  test("an error event inside the stream (overloaded) is retried", async () => {
    const r = await run(model, [
      { ...ok, streamError: { type: "overloaded_error", message: "Overloaded" } },
      ok,
    ]);
    expect(r.requests).toBe(2);
    expect(r.message.stopReason).toBe("toolUse");
  });

  test("aborting ends the stream with stopReason aborted, promptly", async () => {
    const server = await startMockLlm({ script: [{ ...ok, stallMs: 10_000 }] });
    mock = server;
    const controller = new AbortController();
    const provider = createProvider(model, { env: mockEnv(server.url) });
    // Aborted once the request is in the server's hands (a fixed delay could land before the
    // SDK's lazy import is done on a loaded machine, and then no request was ever made).
    let inFlightAt = 0;
    const poll = setInterval(() => {
      if (server.requests.length === 0) return;
      clearInterval(poll);
      inFlightAt = Date.now();
      controller.abort();
    }, 10);
    const { message } = await collect(provider.stream(streamRequest(model, { signal: controller.signal })));
    clearInterval(poll);
    expect(message.stopReason).toBe("aborted");
    expect(inFlightAt).toBeGreaterThan(0);
    expect(Date.now() - inFlightAt).toBeLessThan(5000);
    expect(mock.requests).toHaveLength(1);
  });
});

describe("openai-compatible deviations", () => {
  const model: Model = { provider: "openai-compatible", id: "local-model" };

  test("no usage chunk, tool calls without ids, arguments sent whole", async () => {
    const r = await run(model, [
      {
        noUsage: true,
        argumentsWhole: true,
        toolCalls: [
          { id: null, name: "read", arguments: { path: "a.txt" } },
          { id: null, name: "read", arguments: { path: "b.txt" } },
        ],
      },
    ]);
    expect(r.message.stopReason).toBe("toolUse");
    const calls = r.message.content.filter((p) => p.type === "toolCall");
    expect(calls.map((c) => c.type === "toolCall" && c.arguments)).toEqual([
      { path: "a.txt" },
      { path: "b.txt" },
    ]);
    const ids = calls.map((c) => (c.type === "toolCall" ? c.id : ""));
    expect(new Set(ids).size).toBe(2);
    expect(ids.every((id) => id.length > 0)).toBe(true);
    // No usage on the wire: zeros, marked missing, and the cost unknown rather than a made-up $0.
    expect(r.message.usage.totalTokens).toBe(0);
    expect(r.message.usageMissing).toBe(true);
    expect(r.message.usage.costUnknown).toBe(true);
  });

  test("tool calls without an index are told apart by their ids", async () => {
    const r = await run(model, [
      {
        noToolIndex: true,
        toolCalls: [
          { id: "a", name: "read", arguments: { path: "a.txt" } },
          { id: "b", name: "read", arguments: { path: "b.txt" } },
        ],
      },
    ]);
    const calls = r.message.content.filter((p) => p.type === "toolCall");
    expect(calls).toEqual([
      { type: "toolCall", id: "a", name: "read", arguments: { path: "a.txt" } },
      { type: "toolCall", id: "b", name: "read", arguments: { path: "b.txt" } },
    ]);
  });

  test("works without any API key (local servers)", async () => {
    mock = await startMockLlm({ script: [{ text: "hi", usage: { input: 5, output: 1 } }] });
    const provider = createProvider(model, { env: { OPENAI_BASE_URL: `${mock.url}/v1` } });
    const { message } = await collect(provider.stream(streamRequest(model)));
    expect(message.content).toEqual([{ type: "text", text: "hi" }]);
    expect(message.usage.totalTokens).toBe(6);
  });
});
