import { describe, expect, test } from "vitest";
import {
  Agent,
  type AgentMessage,
  type AssistantMessage,
  emptyUsage,
  type StreamFunction,
  type StreamRequest,
  type TransformContextHook,
  type TransformContextInfo,
} from "../src/core/index.ts";
import { echoTool } from "./helpers/tools.ts";

/**
 * The library's `transformContext` (pi-mono's name and semantics): it shapes what each request
 * sends while `agent.state.messages` stays whole; a context-length refusal calls it once more (with
 * `overflow`) and the turn is sent again, once; the refused attempt is not kept; a transform that
 * throws ends the run; usage it reports counts.
 */
const model = { provider: "test", id: "m1" };

type Answer = { text?: string; call?: string; overflow?: boolean };

/** Answers requests in order; records what each was sent. */
function stream(answers: Answer[]): { stream: StreamFunction; requests: StreamRequest[] } {
  const requests: StreamRequest[] = [];
  let next = 0;
  const fn: StreamFunction = async function* (request) {
    requests.push({ ...request, messages: [...request.messages] });
    const answer = answers[next++] ?? { text: "done" };
    const message: AssistantMessage = {
      role: "assistant",
      content: [],
      provider: "test",
      model: "m1",
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: 0,
    };
    if (answer.overflow) {
      message.stopReason = "error";
      message.errorMessage = "prompt is too long";
      message.error = {
        provider: "test",
        kind: "context_length",
        status: 400,
        message: "prompt is too long",
      };
      yield { type: "error", message };
      return;
    }
    if (answer.text) message.content.push({ type: "text", text: answer.text });
    if (answer.call) {
      message.content.push({
        type: "toolCall",
        id: answer.call,
        name: "echo",
        arguments: { text: answer.call },
      });
      message.stopReason = "toolUse";
    }
    yield { type: "done", message };
  };
  return { stream: fn, requests };
}

const keepLast =
  (seen: Array<{ count: number; overflow: boolean }>): TransformContextHook =>
  (messages, _signal, info) => {
    seen.push({ count: messages.length, overflow: info.overflow !== undefined });
    return info.overflow ? [messages[0] as AgentMessage, ...messages.slice(-2)] : messages;
  };

describe("transformContext", () => {
  test("what it returns is sent; the transcript stays whole", async () => {
    const { stream: s, requests } = stream([{ call: "a" }, { call: "b" }, { text: "done" }]);
    const agent = new Agent({
      stream: s,
      model,
      tools: [echoTool()],
      transformContext: (messages) => messages.filter((m) => m.role !== "toolResult" || m.toolCallId !== "a"),
    });
    const outcome = await agent.prompt("go");
    expect(outcome.reason).toBe("stop");
    expect(requests.map((r) => r.messages.length)).toEqual([1, 2, 4]);
    expect(agent.state.messages).toHaveLength(6);
  });

  test("a context-length refusal: transformed again with `overflow`, the turn sent once more, the refusal not kept", async () => {
    const seen: Array<{ count: number; overflow: boolean }> = [];
    const { stream: s, requests } = stream([
      { call: "a" },
      { call: "b" },
      { overflow: true },
      { text: "done" },
    ]);
    const agent = new Agent({ stream: s, model, tools: [echoTool()], transformContext: keepLast(seen) });
    const outcome = await agent.prompt("go");
    expect(outcome.reason).toBe("stop");
    expect(outcome.turns).toBe(3);
    expect(seen).toEqual([
      { count: 1, overflow: false },
      { count: 3, overflow: false },
      { count: 5, overflow: false },
      { count: 5, overflow: true },
    ]);
    expect(requests[3]?.messages).toHaveLength(3);
    expect(agent.state.messages.some((m) => m.role === "assistant" && m.stopReason === "error")).toBe(false);
  });

  test("refused again after the retry: the run ends with the provider's error", async () => {
    const { stream: s } = stream([{ call: "a" }, { overflow: true }, { overflow: true }, { text: "never" }]);
    const agent = new Agent({ stream: s, model, tools: [echoTool()], transformContext: keepLast([]) });
    const outcome = await agent.prompt("go");
    expect(outcome).toMatchObject({ reason: "error", message: "prompt is too long" });
  });

  test("without a transform, a refusal ends the run as before", async () => {
    const { stream: s, requests } = stream([{ overflow: true }, { text: "never" }]);
    const outcome = await new Agent({ stream: s, model }).prompt("go");
    expect(outcome.reason).toBe("error");
    expect(requests).toHaveLength(1);
  });

  test("a transform that throws ends the run with its message; usage it reports counts", async () => {
    const thrown = await new Agent({
      stream: stream([{ text: "never" }]).stream,
      model,
      transformContext: () => {
        throw new Error("no room");
      },
    }).prompt("go");
    expect(thrown).toMatchObject({ reason: "error", message: "transformContext failed: no room", turns: 0 });

    const spent = emptyUsage();
    spent.input = 100;
    spent.totalTokens = 100;
    const counted = await new Agent({
      stream: stream([{ text: "done" }]).stream,
      model,
      transformContext: (messages, _signal, info: TransformContextInfo) => {
        info.addUsage(spent);
        return messages;
      },
      limits: { maxTokens: 1000 },
    }).prompt("go");
    expect(counted.usage.totalTokens).toBe(100);
  });
});
