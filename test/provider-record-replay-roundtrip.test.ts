import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { Agent } from "../src/core/agent.ts";
import type { StreamFunction } from "../src/core/provider.ts";
import type { AgentMessage, AnyAgentTool, AssistantMessage, Model } from "../src/core/types.ts";
import {
  createProviderRouter,
  createRecorder,
  loadReplayFile,
  ProviderConfigError,
} from "../src/providers/index.ts";
import { collect, mockEnv, streamRequest } from "./mock-llm/collect.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

let mock: MockLlm | undefined;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-replay-"));
});
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A real tool writing into the temp dir. */
function writeTool(root: string): AnyAgentTool {
  return {
    name: "write",
    label: "Write",
    description: "Write a file",
    parameters: z.object({ path: z.string(), content: z.string() }),
    execute: async (_id, params: { path: string; content: string }) => {
      await writeFile(join(root, params.path), params.content);
      return { content: [{ type: "text", text: `wrote ${params.path}` }], details: {} };
    },
  };
}

const script: MockReply[] = [
  {
    thinking: "Write the file.",
    thinkingSignature: "sig-1",
    text: "Writing it.",
    toolCalls: [{ id: "w1", name: "write", argumentsRaw: '{"path": "out.txt", "content": ' }],
    usage: { input: 500, output: 40, cacheRead: 100 },
  },
  {
    toolCalls: [{ id: "w2", name: "write", arguments: { path: "out.txt", content: "hello\n" } }],
    usage: { input: 650, output: 30, cacheRead: 100 },
  },
  { text: "Done: out.txt written.", usage: { input: 700, output: 12, cacheRead: 600 } },
];

const models: Model[] = [
  { provider: "anthropic", id: "claude-haiku-4-5" },
  { provider: "openai", id: "gpt-5-mini" },
  { provider: "openai", id: "gpt-5-mini", api: "chat" },
  { provider: "openai-compatible", id: "qwen3:8b" },
];

async function runAgent(stream: StreamFunction, model: Model) {
  const agent = new Agent({
    stream,
    model,
    tools: [writeTool(dir)],
    systemPrompt: "sys",
    thinkingLevel: "low",
  });
  const outcome = await agent.prompt("write hello to out.txt");
  return { agent, outcome };
}

function assistantTurns(messages: AgentMessage[]) {
  return messages
    .filter((m): m is AssistantMessage => m.role === "assistant")
    .map(({ timestamp: _t, responseId: _r, provider: _p, model: _m, ...rest }) => rest);
}

describe.each(models)("$provider $api $id: a task runs to the end against the server", (model) => {
  test("usage matches what the server reported; a malformed call is corrected; record → replay is identical", async () => {
    mock = await startMockLlm({ script });
    const file = join(dir, "session.yml");
    const recorder = createRecorder(createProviderRouter({ env: mockEnv(mock.url), retryDelayMs: 10 }), file);
    const live = await runAgent(recorder, model);
    await recorder.flush();

    expect(live.outcome.reason).toBe("stop");
    expect(live.outcome.turns).toBe(3);
    expect(await readFile(join(dir, "out.txt"), "utf8")).toBe("hello\n");
    const reported = script.reduce(
      (sum, r) => ({
        input: sum.input + (r.usage?.input ?? 0),
        output: sum.output + (r.usage?.output ?? 0),
        cacheRead: sum.cacheRead + (r.usage?.cacheRead ?? 0),
      }),
      { input: 0, output: 0, cacheRead: 0 },
    );
    expect(live.outcome.usage).toMatchObject({ ...reported, cacheWrite: 0, totalTokens: 2732 });
    const firstResult = live.agent.state.messages.find((m) => m.role === "toolResult");
    expect(firstResult).toMatchObject({ role: "toolResult", toolCallId: "w1", isError: true });
    expect(mock.requests).toHaveLength(3);
    expect(JSON.stringify(mock.requests[1]?.body)).toContain("not valid JSON");

    const replayed = await runAgent(
      createProviderRouter({ env: {}, replay: await loadReplayFile(file) }),
      model,
    );
    expect(replayed.outcome.reason).toBe("stop");
    expect(replayed.outcome.usage).toEqual(live.outcome.usage);
    expect(assistantTurns(replayed.agent.state.messages)).toEqual(assistantTurns(live.agent.state.messages));
    expect(mock.requests).toHaveLength(3);
  });
});

describe("replay files", () => {
  test("a hand-written script plays in order with deterministic ids and priced usage", async () => {
    const file = join(dir, "s.yml");
    await writeFile(
      file,
      [
        "# a scripted session",
        "model: anthropic:claude-haiku-4-5",
        "turns:",
        "  - text: I'll write it.",
        "    tool_calls:",
        "      - { name: write, arguments: { path: a.txt, content: x } }",
        "      - { name: write, arguments: { path: b.txt, content: y } }",
        "    usage: { input: 1000000, output: 0 }",
        "  - text: Done.",
      ].join("\n"),
    );
    const { agent, outcome } = await runAgent(createProviderRouter({ replay: await loadReplayFile(file) }), {
      provider: "replay",
      id: "s",
    });
    expect(outcome.reason).toBe("stop");
    const ids = agent.state.messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : []));
    expect(ids).toEqual(["call_1_0", "call_1_1"]);
    expect(outcome.usage.cost.total).toBeCloseTo(1, 10);
    expect(await readFile(join(dir, "b.txt"), "utf8")).toBe("y");
  });

  test("running past the script's end is an error of kind config", async () => {
    const file = join(dir, "short.yml");
    await writeFile(file, "turns:\n  - tool_calls: [{ name: write, arguments: { path: a, content: b } }]\n");
    const { outcome, agent } = await runAgent(createProviderRouter({ replay: await loadReplayFile(file) }), {
      provider: "replay",
      id: "x",
    });
    expect(outcome.reason).toBe("error");
    expect(outcome.message).toContain("the replay script ran out");
    const last = agent.state.messages.at(-1);
    expect(last?.role === "assistant" && last.error?.kind).toBe("config");
  });

  test("a bad file is a ProviderConfigError with file:line:col", async () => {
    const file = join(dir, "bad.yml");
    await writeFile(file, "turns:\n  - text: ok\n  - text: fine\n    tool_calls:\n      - { nme: write }\n");
    const error = await loadReplayFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderConfigError);
    expect((error as ProviderConfigError).code).toBe("bad_replay_file");
    expect((error as ProviderConfigError).shortMessage).toMatch(
      new RegExp(`^${file}:5:9: turns\\.1\\.tool_calls\\.0`),
    );
    await writeFile(file, "turns:\n  - text: ok\n    tool_cals: []\n");
    const typo = await loadReplayFile(file).catch((e: unknown) => e);
    expect((typo as ProviderConfigError).shortMessage).toBe(
      `${file}:3:5: turns.0: Unrecognized key: "tool_cals"`,
    );
  });

  test("a recorded provider error replays as the same error", async () => {
    mock = await startMockLlm({ script: [{ status: 401, errorMessage: "invalid x-api-key" }] });
    const model: Model = { provider: "anthropic", id: "claude-haiku-4-5" };
    const file = join(dir, "err.yml");
    const recorder = createRecorder(createProviderRouter({ env: mockEnv(mock.url) }), file);
    const live = await collect(recorder(streamRequest(model)));
    await recorder.flush();
    const replay = createProviderRouter({ replay: await loadReplayFile(file) });
    const again = await collect(replay(streamRequest(model)));
    expect(again.message.stopReason).toBe("error");
    expect(again.message.error).toEqual(live.message.error);
    expect(live.message.error?.kind).toBe("auth");
  });
});

describe("the router", () => {
  test("a missing key ends the stream with a config error naming the variable, without a request", async () => {
    const stream = createProviderRouter({ env: {} });
    const { message } = await collect(
      stream(streamRequest({ provider: "anthropic", id: "claude-haiku-4-5" })),
    );
    expect(message.stopReason).toBe("error");
    expect(message.error?.kind).toBe("config");
    expect(message.errorMessage).toContain("ANTHROPIC_API_KEY");
  });

  test("switches providers between requests (prepare_next_turn)", async () => {
    mock = await startMockLlm({ script: [{ text: "a" }, { text: "b" }] });
    const stream = createProviderRouter({ env: mockEnv(mock.url) });
    await collect(stream(streamRequest({ provider: "anthropic", id: "claude-haiku-4-5" })));
    await collect(stream(streamRequest({ provider: "openai", id: "gpt-5-mini" })));
    expect(mock.requests.map((r) => r.format)).toEqual(["anthropic", "responses"]);
  });
});
