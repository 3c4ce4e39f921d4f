import { describe, expect, test } from "vitest";
import type { Model, ThinkingLevel } from "../src/core/types.ts";
import { buildAnthropicParams, buildChatBody, buildResponsesBody } from "../src/providers/index.ts";
import { streamRequest } from "./mock-llm/collect.ts";

const at = (model: Model, thinkingLevel: ThinkingLevel) => streamRequest(model, { thinkingLevel });

describe("thinking levels per provider", () => {
  const budget: Model = { provider: "anthropic", id: "claude-haiku-4-5", temperature: 0.3 };
  const adaptive: Model = { provider: "anthropic", id: "claude-opus-4-6" };

  test.for([
    ["minimal", 1024],
    ["low", 4096],
    ["medium", 10_000],
    ["high", 20_000],
    ["xhigh", 32_000],
  ] as const)("anthropic budget models: %s → %i budget tokens, no temperature", ([level, tokens]) => {
    const params = buildAnthropicParams(at(budget, level)) as unknown as Record<string, unknown>;
    expect(params.thinking).toEqual({ type: "enabled", budget_tokens: tokens });
    expect(params.max_tokens as number).toBeGreaterThan(tokens);
    expect(params.temperature).toBeUndefined();
  });

  test("anthropic off: no thinking, temperature sent; 4.6+ models use adaptive thinking with effort", () => {
    const off = buildAnthropicParams(at(budget, "off")) as unknown as Record<string, unknown>;
    expect(off.thinking).toBeUndefined();
    expect(off.temperature).toBe(0.3);
    expect(off.max_tokens).toBe(16_384);
    const params = buildAnthropicParams(at(adaptive, "xhigh")) as unknown as Record<string, unknown>;
    expect(params.thinking).toEqual({ type: "adaptive" });
    expect(params.output_config).toEqual({ effort: "xhigh" });
  });

  test.for(["minimal", "low", "medium", "high", "xhigh"] as const)(
    "openai: %s is the reasoning effort",
    (level) => {
      const model: Model = { provider: "openai", id: "gpt-5" };
      expect(buildResponsesBody(at(model, level)).reasoning).toEqual({ effort: level, summary: "auto" });
      expect(buildChatBody(at(model, level), false).reasoning_effort).toBe(level);
    },
  );

  test("openai off sends no reasoning; compatible servers get low/medium/high only", () => {
    const model: Model = { provider: "openai", id: "gpt-4.1" };
    expect(buildResponsesBody(at(model, "off")).reasoning).toBeUndefined();
    expect(buildChatBody(at(model, "off"), false).reasoning_effort).toBeUndefined();
    const compat: Model = { provider: "openai-compatible", id: "q" };
    expect(buildChatBody(at(compat, "minimal"), true).reasoning_effort).toBe("low");
    expect(buildChatBody(at(compat, "xhigh"), true).reasoning_effort).toBe("high");
  });
});
