import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { writeNoteThenDone } from "./helpers/mock-scripts.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

/**
 * Issue 4's "done when", through the real CLI: with the base URLs pointed at a server that speaks
 * the APIs, a task on each provider runs to the end and usage.json has the server's own counts.
 */
let mock: MockLlm;
beforeAll(async () => {
  mock = await startMockLlm({ script: writeNoteThenDone });
});
afterAll(() => mock.close());

const mockEnv = (): NodeJS.ProcessEnv => ({
  ANTHROPIC_API_KEY: "test-anthropic-key",
  ANTHROPIC_BASE_URL: mock.url,
  OPENAI_API_KEY: "test-openai-key",
  OPENAI_BASE_URL: `${mock.url}/v1`,
});

test.for([
  ["anthropic:claude-haiku-4-5", "anthropic"],
  ["openai:gpt-5-mini", "responses"],
  ["openai-compatible:qwen3:8b", "chat"],
] as const)("%s runs to the end; usage.json equals what the server reported", async ([model, format]) => {
  const dir = await tempWorkspace({
    "task.yml": `model: ${model}\nprompt: write note.txt\ntools: [write]\n`,
  });
  const before = mock.requests.length;
  const result = await runCli([path.join(dir, "task.yml")], { env: mockEnv() });
  expect(result.stderr).toContain("success · 2 turns");
  expect(result.code).toBe(0);
  const served = mock.requests.slice(before);
  expect(served.map((r) => r.format)).toEqual([format, format]);
  // Sent through node:http (src/providers/http-fetch.ts): none of the headers undici's fetch adds.
  expect(served.map((r) => r.headers["sec-fetch-mode"])).toEqual([undefined, undefined]);
  const usage = JSON.parse(await readFile(path.join(dir, ".agent-run", "usage.json"), "utf8"));
  expect(usage.tokens).toEqual({ input: 2100, output: 60, cache_read: 0, cache_write: 0, total: 2160 });
  expect(usage.tool_calls.by_tool.write.calls).toBe(1);
  expect(await readFile(path.join(dir, "note.txt"), "utf8")).toBe("from the model\n");
  // Known price for the first two; an openai-compatible server's price is unknown: null, not 0.
  if (model.startsWith("openai-compatible")) expect(usage.cost_usd).toBeNull();
  else expect(usage.cost_usd).toBeGreaterThan(0);
});

test("with NODE_USE_ENV_PROXY set, the requests go through Node's fetch, which honours a proxy", async () => {
  const dir = await tempWorkspace({
    "task.yml": "model: anthropic:claude-haiku-4-5\nprompt: write note.txt\ntools: [write]\n",
  });
  const before = mock.requests.length;
  const result = await runCli([path.join(dir, "task.yml")], {
    env: {
      ...mockEnv(),
      NODE_USE_ENV_PROXY: "1",
      // No proxy to use: the loopback server is reached directly either way.
      HTTP_PROXY: "",
      HTTPS_PROXY: "",
      http_proxy: "",
      https_proxy: "",
    },
  });
  expect(result.stderr).toContain("success · 2 turns");
  expect(mock.requests.slice(before).map((r) => r.headers["sec-fetch-mode"])).toEqual(["cors", "cors"]);
});
