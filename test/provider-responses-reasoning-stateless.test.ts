import { afterEach, describe, expect, test } from "vitest";
import type { AgentMessage, Model } from "../src/core/types.ts";
import { buildResponsesBody, createProvider } from "../src/providers/index.ts";
import { collect, mockEnv, readTool, streamRequest } from "./mock-llm/collect.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** Turn 1 reasons and calls a tool; turn 2 sends it all back (store: false) and must succeed. */
async function twoTurns(model: Model) {
  mock = await startMockLlm({
    script: [
      {
        thinking: "Read the README first.",
        thinkingSignature: "enc-1",
        toolCalls: [{ id: "call_1", name: "read", arguments: { path: "README.md" } }],
      },
      { text: "Done." },
    ],
  });
  const provider = createProvider(model, { env: mockEnv(mock.url), maxRetries: 0 });
  const user: AgentMessage = { role: "user", content: "summarise the README", timestamp: 1 };
  const first = await collect(provider.stream(streamRequest(model, { messages: [user], tools: [readTool] })));
  expect(first.message.stopReason).toBe("toolUse");
  const messages: AgentMessage[] = [
    user,
    first.message,
    {
      role: "toolResult",
      toolCallId: "call_1",
      toolName: "read",
      content: [{ type: "text", text: "# hello" }],
      details: {},
      isError: false,
      timestamp: 3,
    },
  ];
  const second = await collect(provider.stream(streamRequest(model, { messages, tools: [readTool] })));
  const [turn1, turn2] = (mock.requests ?? []).map((r) => r.body);
  return { second: second.message, turn1, input: (turn2?.input ?? []) as Record<string, unknown>[] };
}

describe("OpenAI Responses, stateless: reasoning items across turns with thinking off", () => {
  test("a reasoning model gets encrypted reasoning and turn 2 sends it back", async () => {
    const { second, turn1, input } = await twoTurns({ provider: "openai", id: "gpt-5-mini" });
    expect(turn1?.reasoning).toBeUndefined();
    expect(turn1?.include).toEqual(["reasoning.encrypted_content"]);
    expect(second.errorMessage).toBeUndefined();
    expect(second.stopReason).toBe("stop");
    expect(input.filter((item) => item.type === "reasoning")).toMatchObject([
      { id: "rs_mock_0", encrypted_content: "enc-1" },
    ]);
  });

  test("a reasoning item without encrypted content is dropped, not sent back", async () => {
    // A model id the runner does not know to reason (a deployment alias) that reasons anyway.
    const { second, turn1, input } = await twoTurns({ provider: "openai", id: "my-deployment" });
    expect(turn1?.include).toBeUndefined();
    expect(second.errorMessage).toBeUndefined();
    expect(second.stopReason).toBe("stop");
    expect(input.some((item) => item.type === "reasoning")).toBe(false);
    expect(input).toContainEqual(expect.objectContaining({ type: "function_call", call_id: "call_1" }));
  });

  test.for([
    ["gpt-5-mini", true],
    ["gpt-5.1-codex", true],
    ["o3", true],
    ["o4-mini", true],
    ["gpt-4.1", false],
    ["gpt-4o", false],
    ["gpt-5-chat-latest", false],
  ] as const)("thinking off: %s asks for encrypted reasoning: %s", ([id, asks]) => {
    const body = buildResponsesBody(streamRequest({ provider: "openai", id }));
    // Non-reasoning models refuse the include with a 400.
    expect(body.include).toEqual(asks ? ["reasoning.encrypted_content"] : undefined);
  });
});
