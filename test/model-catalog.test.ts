import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, test } from "vitest";
import { readSdkModels } from "../scripts/sdk-models.ts";
import { catalogEntry } from "../src/providers/catalog-source.ts";
import { buildAnthropicParams, loadModelCatalog, modelInfo } from "../src/providers/index.ts";
import { MODEL_SUPPLEMENT } from "../src/providers/model-catalog.ts";
import { renderSdkModels, SDK_MODELS, type SdkProvider } from "../src/providers/sdk-models.ts";

/** modelInfo (src/providers/model-catalog.ts): the one lookup of prices, windows and deprecations. */
beforeAll(() => loadModelCatalog());

const PROVIDERS: SdkProvider[] = ["anthropic", "openai"];
const NOW = new Date("2026-12-01T00:00:00Z");

describe("context windows", () => {
  test("a known model's window comes from the catalog, or the supplement for one the catalog lacks", () => {
    expect(modelInfo({ provider: "anthropic", id: "claude-opus-4-8" })).toMatchObject({
      known: true,
      contextWindow: 1_000_000,
    });
    expect(modelInfo({ provider: "openai", id: "gpt-5.4-mini-2026-03-17" }).contextWindow).toBe(400_000);
    expect(modelInfo({ provider: "anthropic", id: "claude-haiku-5-5" })).toMatchObject({
      contextWindow: 1_000_000,
      maxOutputTokens: 128_000,
      pricingSource: "supplement",
    });
  });

  test("unknown: a free-form or unknown id has none, unless the spec sets context_window", () => {
    expect(modelInfo({ provider: "openai-compatible", id: "qwen3:8b" }).contextWindow).toBeUndefined();
    expect(modelInfo({ provider: "anthropic", id: "claude-nonesuch-9" })).toMatchObject({ known: false });
    expect(modelInfo({ provider: "anthropic", id: "claude-nonesuch-9" }).contextWindow).toBeUndefined();
    expect(
      modelInfo({ provider: "openai-compatible", id: "qwen3:8b", contextWindow: 32_768 }).contextWindow,
    ).toBe(32_768);
    expect(
      modelInfo({ provider: "anthropic", id: "claude-opus-4-8", contextWindow: 200_000 }).contextWindow,
    ).toBe(200_000);
  });
});

describe("prices", () => {
  test("the spec's pricing wins over the supplement and the catalog; openai-compatible is never looked up", () => {
    const pricing = { input: 9, output: 9, cacheRead: 9, cacheWrite: 9 };
    expect(modelInfo({ provider: "anthropic", id: "claude-sonnet-5-5", pricing })).toMatchObject({
      pricing,
      pricingSource: "spec",
    });
    expect(modelInfo({ provider: "anthropic", id: "claude-haiku-5-5", pricing }).pricing).toBe(pricing);
    expect(modelInfo({ provider: "openai-compatible", id: "gpt-5.4-mini" }).pricing).toBeUndefined();
    expect(modelInfo({ provider: "openai", id: "gpt-5.4-mini" })).toMatchObject({
      pricing: { input: 0.75, output: 4.5, cacheRead: 0.075, cacheWrite: 0 },
      pricingSource: "catalog",
    });
  });

  test("every model the SDKs list has a price, or a supplement entry saying why it has none", () => {
    const coverage: Record<string, string> = {};
    for (const provider of PROVIDERS) {
      const models = SDK_MODELS[provider].models;
      const unpriced = models.filter((id) => !modelInfo({ provider, id }).pricing);
      for (const id of unpriced) {
        expect(
          MODEL_SUPPLEMENT[provider][id]?.note,
          `${provider}:${id} has no price and no note`,
        ).toBeTruthy();
        expect(modelInfo({ provider, id }).note).toBe(MODEL_SUPPLEMENT[provider][id]?.note);
      }
      const windows = models.filter((id) => modelInfo({ provider, id }).contextWindow !== undefined);
      coverage[provider] =
        `${models.length - unpriced.length}/${models.length} priced, ${windows.length} windows`;
    }
    // The figures docs/providers.md reports (with the supplement; the catalog alone: 16/22 and 104/112).
    expect(coverage).toEqual({
      anthropic: "20/22 priced, 21 windows",
      openai: "106/112 priced, 105 windows",
    });
  });

  test("the supplement holds only what the catalog lacks or gets wrong, each entry dated and sourced", () => {
    for (const provider of PROVIDERS) {
      for (const [id, entry] of Object.entries(MODEL_SUPPLEMENT[provider])) {
        expect(entry.checked, `${provider}:${id}`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(entry.source ?? entry.note, `${provider}:${id}`).toBeTruthy();
        const catalog = catalogEntry(provider, id, NOW);
        if (entry.pricing === null) {
          expect(catalog?.pricing, `the catalog now prices ${provider}:${id}: drop it`).toBeUndefined();
        } else {
          expect(catalog?.pricing, `the catalog now agrees on ${provider}:${id}: drop it`).not.toEqual(
            entry.pricing,
          );
        }
      }
    }
  });
});

describe("deprecations, from the SDKs' own lists", () => {
  test("src/providers/sdk-models.json is what the installed SDKs say (npm run sdk-models)", async () => {
    const file = await readFile(new URL("../src/providers/sdk-models.json", import.meta.url), "utf8");
    expect(file).toBe(renderSdkModels(await readSdkModels()));
  });

  test("a deprecated model carries the SDK's date and the newest model of its family", () => {
    expect(modelInfo({ provider: "anthropic", id: "claude-sonnet-4-5-20250929" }).deprecated).toEqual({
      date: "2026-11-30",
      replacement: "claude-sonnet-5-5",
      source: "@anthropic-ai/sdk@1.10.0",
    });
    expect(modelInfo({ provider: "openai", id: "gpt-4.1" }).deprecated).toMatchObject({
      date: "2027-01-14",
      replacement: "gpt-5.5",
    });
    expect(modelInfo({ provider: "openai", id: "gpt-5.1-mini" }).deprecated).toMatchObject({
      note: "Not a supported model ID.",
    });
    expect(modelInfo({ provider: "anthropic", id: "claude-sonnet-5-5" }).deprecated).toBeUndefined();
  });
});

test("adaptive thinking where the Anthropic SDK asks for it (claude-mythos-preview), budgets where it does not", () => {
  const request = (id: string) =>
    buildAnthropicParams({
      model: { provider: "anthropic", id },
      systemPrompt: "",
      messages: [{ role: "user", content: "hi", timestamp: 0 }],
      tools: [],
      thinkingLevel: "high",
      signal: new AbortController().signal,
    });
  expect(request("claude-mythos-preview").thinking).toEqual({ type: "adaptive" });
  expect(request("claude-mythos-preview").output_config).toEqual({ effort: "high" });
  expect(request("claude-haiku-4-5").thinking).toEqual({ type: "enabled", budget_tokens: 20_000 });
});
