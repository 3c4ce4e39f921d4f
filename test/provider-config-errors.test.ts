import { describe, expect, test } from "vitest";
import {
  createProvider,
  createProviderRouter,
  loadModelCatalog,
  ProviderConfigError,
  parseModelRef,
  priceFor,
  resolveClientSettings,
} from "../src/providers/index.ts";

function configError(fn: () => unknown): ProviderConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ProviderConfigError) return error;
    throw error;
  }
  throw new Error("expected a ProviderConfigError");
}

describe("parseModelRef", () => {
  test.for([
    ["anthropic:claude-sonnet-4-5", { provider: "anthropic", id: "claude-sonnet-4-5" }],
    ["openai:gpt-5-mini", { provider: "openai", id: "gpt-5-mini" }],
    ["openai-compatible:qwen3:8b", { provider: "openai-compatible", id: "qwen3:8b" }],
  ] as const)("%s", ([ref, model]) => {
    expect(parseModelRef(ref)).toEqual(model);
  });

  test("the spec's object form maps snake_case to the Model", () => {
    expect(
      parseModelRef({
        provider: "openai",
        id: "gpt-5-mini",
        api: "chat",
        base_url: "http://x/v1",
        api_key_env: "MY_KEY",
        max_output_tokens: 4096,
        temperature: 0,
        thinking: "low",
        pricing: { input: 1, output: 2, cache_read: 0.1 },
      }),
    ).toEqual({
      provider: "openai",
      id: "gpt-5-mini",
      api: "chat",
      baseUrl: "http://x/v1",
      apiKeyEnv: "MY_KEY",
      maxOutputTokens: 4096,
      temperature: 0,
      pricing: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 0 },
    });
  });

  test("bad references throw with a code", () => {
    expect(configError(() => parseModelRef("claude")).code).toBe("bad_model_ref");
    expect(configError(() => parseModelRef("anthropic:")).code).toBe("bad_model_ref");
    const unknown = configError(() => parseModelRef("anthropc:claude"));
    expect(unknown.code).toBe("unknown_provider");
    expect(unknown.message).toContain('did you mean "anthropic"');
  });
});

describe("keys and base URLs", () => {
  test("a missing key is an error at creation, naming the variable", () => {
    const error = configError(() =>
      createProvider({ provider: "anthropic", id: "claude-haiku-4-5" }, { env: {} }),
    );
    expect(error.code).toBe("missing_api_key");
    expect(error.message).toContain("ANTHROPIC_API_KEY");
    expect(
      configError(() => createProvider({ provider: "openai", id: "gpt-5" }, { env: {} })).message,
    ).toContain("OPENAI_API_KEY");
    const custom = configError(() =>
      createProvider(
        { provider: "openai", id: "gpt-5", apiKeyEnv: "TEAM_KEY" },
        { env: { OPENAI_API_KEY: "k" } },
      ),
    );
    expect(custom.message).toContain("TEAM_KEY");
  });

  test("the router checks the given models up front", () => {
    const error = configError(() =>
      createProviderRouter({ env: {}, models: [{ provider: "openai", id: "gpt-5-mini" }] }),
    );
    expect(error.code).toBe("missing_api_key");
    expect(() =>
      createProviderRouter({ env: { OPENAI_API_KEY: "k" }, models: [{ provider: "openai", id: "x" }] }),
    ).not.toThrow();
  });

  test("base URL: the model's, else the environment's, else the official one; openai-compatible needs one", () => {
    const env = {
      ANTHROPIC_API_KEY: "a",
      OPENAI_API_KEY: "o",
      ANTHROPIC_BASE_URL: "http://proxy:1/",
      OPENAI_BASE_URL: "http://oai:2/v1",
    };
    expect(resolveClientSettings({ provider: "anthropic", id: "m" }, { env }).baseUrl).toBe("http://proxy:1");
    expect(resolveClientSettings({ provider: "openai", id: "m" }, { env }).baseUrl).toBe("http://oai:2/v1");
    expect(
      resolveClientSettings({ provider: "openai", id: "m", baseUrl: "http://mine/v1" }, { env }).baseUrl,
    ).toBe("http://mine/v1");
    expect(
      resolveClientSettings({ provider: "anthropic", id: "m" }, { env: { ANTHROPIC_API_KEY: "a" } }).baseUrl,
    ).toBe("https://api.anthropic.com");
    expect(
      configError(() => createProvider({ provider: "openai-compatible", id: "llama" }, { env: {} })).code,
    ).toBe("bad_option");
    expect(
      configError(() => createProvider({ provider: "openai", id: "m", api: "completions" }, { env })).code,
    ).toBe("bad_option");
  });
});

describe("priceFor", () => {
  test("catalog, dated ids, overrides; openai-compatible and unknown models have no price", async () => {
    await loadModelCatalog();
    expect(priceFor({ provider: "anthropic", id: "claude-sonnet-4-5" })).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
    expect(priceFor({ provider: "anthropic", id: "claude-haiku-4-5-20251001" })?.input).toBe(1);
    expect(priceFor({ provider: "openai", id: "gpt-4.1-2025-04-14" })?.output).toBe(8);
    expect(priceFor({ provider: "openai", id: "gpt-unknown" })).toBeUndefined();
    expect(priceFor({ provider: "openai-compatible", id: "gpt-5" })).toBeUndefined();
    const pricing = { input: 9, output: 9, cacheRead: 9, cacheWrite: 9 };
    expect(priceFor({ provider: "openai", id: "gpt-5", pricing })).toBe(pricing);
  });
});
