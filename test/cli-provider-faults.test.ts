import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { readJson, runCli, tempWorkspace } from "./helpers/cli.ts";
import { closedPortUrl, type MockLlm, type MockScript, startMockLlm } from "./mock-llm/server.ts";

/**
 * Provider faults through the bundled CLI (what users and the action run; the bundle minifies the
 * SDKs' class names), on each wire format: one retry budget (4 retries, 5 requests) whatever
 * fails, the message stating the real count, and the usage the servers leave out.
 */
const MODELS = [
  ["anthropic:claude-haiku-4-5", "anthropic"],
  ["openai:gpt-5-mini", "responses"],
  ["openai-compatible:qwen3:8b", "chat"],
] as const;

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

function envFor(url: string): NodeJS.ProcessEnv {
  return {
    ANTHROPIC_API_KEY: "test-anthropic-key",
    ANTHROPIC_BASE_URL: url,
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: `${url}/v1`,
    // Keep the backoff short; the count of retries is the default budget's.
    AGENT_RUN_RETRY_DELAY_MS: "1",
  };
}

async function runTask(model: string, url: string, tools = "[write]") {
  const dir = await tempWorkspace({
    "task.yml": `model: ${model}\nprompt: write the notes\ntools: ${tools}\n`,
  });
  const result = await runCli([path.join(dir, "task.yml")], { env: envFor(url) });
  const out = path.join(dir, ".agent-run");
  const events = (await readFile(path.join(out, "events.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    dir,
    result,
    events,
    retries: events.filter((e) => e.type === "message_update" && e.update === "retry"),
    usage: await readJson(path.join(out, "usage.json")),
    summary: await readFile(path.join(out, "summary.md"), "utf8"),
  };
}

async function serve(script: MockScript): Promise<string> {
  mock = await startMockLlm({ script });
  return mock.url;
}

describe.each(MODELS)("%s", (model) => {
  test("connection refused: exit 4 after exactly 4 retries, and the message says 4", async () => {
    const r = await runTask(model, await closedPortUrl());
    expect(r.result.code).toBe(4);
    expect(r.retries.map((e) => e.attempt)).toEqual([1, 2, 3, 4]);
    expect(r.usage.conclusion).toBe("error");
    expect(r.summary).toMatch(/\(connection\): could not connect: .*ECONNREFUSED.* \(after 4 retries\)/);
    expect(r.result.stderr).toContain("(after 4 retries)");
  });

  test("a 503 on every request: exactly 5 requests, exit 4, the count in the message", async () => {
    const r = await runTask(model, await serve([{ status: 503, errorMessage: "upstream is down" }]));
    expect(mock?.requests).toHaveLength(5);
    expect(r.result.code).toBe(4);
    expect(r.retries).toHaveLength(4);
    expect(r.summary).toContain("503 (transient): upstream is down (after 4 retries)");
  });

  test("503s, then streams cut mid-reply: one budget for both, exactly 5 requests, exit 4", async () => {
    const cut = { text: "Writing the notes now.", cut: "text" } as const;
    const r = await runTask(model, await serve([{ status: 503 }, { status: 503 }, cut]));
    expect(mock?.requests).toHaveLength(5);
    expect(r.result.code).toBe(4);
    expect(r.retries).toHaveLength(4);
    expect(r.summary).toMatch(/\(connection\): the connection broke mid-stream .*\(after 4 retries\)/);
  });

  test("a proxy's HTML 502 page: 5 requests, exit 4, a message naming the page, no HTML", async () => {
    const r = await runTask(model, await serve([{ htmlStatus: 502 }]));
    expect(mock?.requests).toHaveLength(5);
    expect(r.result.code).toBe(4);
    expect(r.summary).toContain(
      'an HTML page instead of the API\'s answer (a proxy or gateway in between?): "502 Bad Gateway"',
    );
    expect(r.result.stderr + r.summary).not.toContain("<html");
  });

  test("invalid SSE on every request: 5 requests, exit 4, a message saying so", async () => {
    const r = await runTask(model, await serve([{ text: "Writing the notes now.", invalidSse: true }]));
    expect(mock?.requests).toHaveLength(5);
    expect(r.result.code).toBe(4);
    expect(r.summary).toContain("the stream is not the API's server-sent events");
  });

  test("a stream that stalls after its first event is aborted by the idle timeout and retried", async () => {
    const dir = await tempWorkspace({ "task.yml": `model: ${model}\nprompt: say hi\ntools: [write]\n` });
    mock = await startMockLlm({ script: [{ text: "Hi there.", stallMs: 30_000 }, { text: "Hi there." }] });
    const result = await runCli([path.join(dir, "task.yml")], {
      env: { ...envFor(mock.url), AGENT_RUN_IDLE_TIMEOUT_MS: "300" },
    });
    expect(result.code).toBe(0);
    expect(mock.requests).toHaveLength(2);
    expect(result.stderr).toContain("(timeout): the stream sent no data for 300 ms");
  });

  test("no usage on the wire: the run succeeds, zero tokens, cost unknown, a note says so", async () => {
    const r = await runTask(
      model,
      await serve((index) =>
        index === 0
          ? { toolCalls: [{ name: "write", arguments: { path: "n.txt", content: "hi\n" } }], noUsage: true }
          : { text: "Done.", noUsage: true },
      ),
    );
    expect(r.result.code).toBe(0);
    expect(r.usage.tokens).toEqual({ input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 });
    expect(r.usage.cost_usd).toBeNull();
    expect(r.summary).toContain("reported no token usage for 2 of 2 model call(s)");
    expect(await readFile(path.join(r.dir, "n.txt"), "utf8")).toBe("hi\n");
  });

  test("a write cut by the output-token limit never lands; the model resends it smaller", async () => {
    const r = await runTask(
      model,
      await serve((index) =>
        index === 0
          ? {
              text: "Writing both files.",
              stop: "length",
              truncateLastCall: 40,
              toolCalls: [
                // Complete-looking, but in a cut message: it must not run either.
                { name: "write", arguments: { path: "small.txt", content: "complete\n" } },
                {
                  name: "write",
                  arguments: { path: "big.txt", content: "half of a very long file\n".repeat(50) },
                },
              ],
              usage: { input: 50, output: 16_384 },
            }
          : index === 1
            ? { toolCalls: [{ name: "write", arguments: { path: "big.txt", content: "part one\n" } }] }
            : { text: "Done." },
      ),
    );
    expect(r.result.code).toBe(0);
    expect(existsSync(path.join(r.dir, "small.txt"))).toBe(false);
    expect(await readFile(path.join(r.dir, "big.txt"), "utf8")).toBe("part one\n");
    // The model was told why, for each call of the cut message.
    const told = JSON.stringify(mock?.requests[1]?.body);
    expect(told.match(/cut off by the output-token limit/g)).toHaveLength(2);
    expect(r.usage.tool_calls).toMatchObject({ total: 3, by_tool: { write: { calls: 3, errors: 2 } } });
  });
});
