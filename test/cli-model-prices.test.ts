import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { writeNoteThenDone } from "./helpers/mock-scripts.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

/**
 * Issue 16: the cost in usage.json comes from the model catalog (@pydantic/genai-prices), from the
 * dated supplement for current models the catalog lacks, or from the spec's `pricing`, which wins;
 * with none of them the cost is null and the summary says why. Each run goes through the bundled
 * CLI against the mock LLM, on the wire format of its provider. Every run: 2100 input and 60 output
 * tokens, no cache.
 */
let mock: MockLlm;
beforeAll(async () => {
  mock = await startMockLlm({ script: writeNoteThenDone });
});
afterAll(() => mock.close());

async function run(model: string, extra = "") {
  const dir = await tempWorkspace({
    "task.yml": `model: ${model}\nprompt: write note.txt\ntools: [write]\n${extra}`,
  });
  const result = await runCli([path.join(dir, "task.yml")], {
    env: {
      ANTHROPIC_API_KEY: "test-anthropic-key",
      ANTHROPIC_BASE_URL: mock.url,
      OPENAI_API_KEY: "test-openai-key",
      OPENAI_BASE_URL: `${mock.url}/v1`,
    },
  });
  expect(result.stderr).toContain("success · 2 turns");
  const outputs = path.join(dir, ".agent-run");
  const usage = JSON.parse(await readFile(path.join(outputs, "usage.json"), "utf8"));
  expect(usage.tokens).toEqual({ input: 2100, output: 60, cache_read: 0, cache_write: 0, total: 2160 });
  return { result, usage, summary: await readFile(path.join(outputs, "summary.md"), "utf8") };
}

/** USD for the runs' tokens at `input` and `output` dollars per million. */
const cost = (input: number, output: number) => (2100 * input + 60 * output) / 1e6;

describe("prices from the catalog, per provider", () => {
  test.for([
    // The catalog: claude-sonnet-5-5 at $2 / $10, gpt-5.4-mini at $0.75 / $4.50.
    ["anthropic:claude-sonnet-5-5", "", cost(2, 10)],
    ["openai:gpt-5.4-mini", "", cost(0.75, 4.5)],
    ["{ provider: openai, id: gpt-5.4-mini, api: chat }", "", cost(0.75, 4.5)],
  ] as const)("%s is priced by the catalog", async ([model, extra, expected]) => {
    const { usage, summary } = await run(model, extra);
    expect(usage.cost_usd).toBeCloseTo(expected, 12);
    expect(summary).not.toContain("The cost is unknown");
  });
});

describe("the supplement and the spec's pricing", () => {
  test.for([
    // Not in the catalog (released after it): priced by src/providers/model-supplement.json.
    ["anthropic:claude-haiku-5-5", "", cost(0.1, 0.5)],
    ["openai:gpt-6.1-terra", "", cost(1, 5)],
    // The spec's pricing beats the catalog and prices what nothing else does.
    ["{ provider: anthropic, id: claude-sonnet-5-5, pricing: { input: 1, output: 1 } }", "", cost(1, 1)],
    ['{ provider: openai-compatible, id: "qwen3:8b", pricing: { input: 0.5, output: 2 } }', "", cost(0.5, 2)],
  ] as const)("%s", async ([model, extra, expected]) => {
    const { usage } = await run(model, extra);
    expect(usage.cost_usd).toBeCloseTo(expected, 12);
  });

  test("no price anywhere: cost null, the summary says why, and a cost limit says it cannot be enforced", async () => {
    const { result, usage, summary } = await run(
      "openai-compatible:qwen3:8b",
      "limits: { max_cost_usd: 1 }\n",
    );
    expect(usage.cost_usd).toBeNull();
    expect(result.stderr).toContain(
      "max_cost_usd ($1) cannot be enforced: no price is known for openai-compatible:qwen3:8b",
    );
    expect(summary).toMatch(/max\\?_cost\\?_usd \(\$1\) cannot be enforced/);
    expect(summary).toContain(
      "The cost is unknown: no price is known for openai-compatible:qwen3:8b; set model.pricing",
    );
  });
});
