import { expect, test } from "vitest";
import { Agent, type AssistantMessage, emptyUsage, type StreamFunction } from "../src/core/index.ts";
import { prestartWhileModelThinks } from "../src/run/prestart.ts";
import { scriptedStream } from "./helpers/scripted-stream.ts";
import { echoTool } from "./helpers/tools.ts";

/**
 * When the run starts what tool calls need (the sandbox session, the shell parser): watched on a
 * real Agent's events. A model slower than the moment starts it while it thinks, a streaming tool
 * call at once; a quick text-only answer never does.
 */
const model = { provider: "test", id: "m1" };
const MOMENT_MS = 60;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function watched(stream: StreamFunction, afterMs = MOMENT_MS) {
  const agent = new Agent({ stream, model, tools: [echoTool()] });
  const starts: string[] = [];
  const seen: string[] = [];
  agent.subscribe((event) => {
    seen.push(event.type);
  });
  prestartWhileModelThinks(agent.subscribe.bind(agent), () => starts.push(seen.at(-1) ?? "none"), afterMs);
  return { agent, starts };
}

test("a quick text-only answer starts nothing, not even after the moment has passed", async () => {
  // A long moment: a busy machine's pause between the call and its answer cannot outlast it.
  const { agent, starts } = watched(scriptedStream([{ text: "done" }]).stream, 500);
  await agent.prompt("go");
  await pause(1500);
  expect(starts).toEqual([]);
});

test("a model that thinks longer than the moment gets the start while it thinks, once", async () => {
  const { stream } = scriptedStream([
    { toolCalls: [{ name: "echo", arguments: { text: "a" } }], delayMs: MOMENT_MS * 5 },
    { toolCalls: [{ name: "echo", arguments: { text: "b" } }], delayMs: MOMENT_MS * 5 },
    { text: "done", delayMs: MOMENT_MS * 5 },
  ]);
  const { agent, starts } = watched(stream);
  await agent.prompt("go");
  // Started during the first model call: the last event before it was that call's turn_start.
  expect(starts).toEqual(["turn_start"]);
});

test("a tool call that starts streaming starts it at once, before the reply is over", async () => {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  const stream: StreamFunction = async function* (request) {
    const message: AssistantMessage = {
      role: "assistant",
      content: [],
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
    if (calls++ > 0) {
      message.content.push({ type: "text", text: "done" });
      yield { type: "done", message };
      return;
    }
    yield { type: "start", partial: message };
    yield { type: "toolcall_delta", contentIndex: 0, delta: '{"text":', partial: message };
    // The rest of the call comes only once the test has looked.
    await Promise.race([
      released,
      new Promise((resolve) => request.signal.addEventListener("abort", resolve)),
    ]);
    message.content.push({ type: "toolCall", id: "call_1", name: "echo", arguments: { text: "a" } });
    message.stopReason = "toolUse";
    yield { type: "done", message };
  };
  // A moment far longer than the test: only the tool call can have started it.
  const { agent, starts } = watched(stream, 60_000);
  const run = agent.prompt("go");
  for (let waited = 0; starts.length === 0 && waited < 5000; waited += 10) await pause(10);
  expect(starts).toEqual(["message_update"]);
  release();
  expect(await run).toMatchObject({ reason: "stop", turns: 2 });
  expect(starts).toHaveLength(1);
});

test("a run that ends while its model call is still within the moment starts nothing afterwards", async () => {
  const controller = new AbortController();
  const { agent, starts } = watched(scriptedStream([{ text: "late", delayMs: 10_000 }]).stream, 1000);
  const run = agent.prompt("go", { signal: controller.signal });
  await pause(MOMENT_MS);
  controller.abort();
  await run;
  await pause(2000);
  expect(starts).toEqual([]);
});
