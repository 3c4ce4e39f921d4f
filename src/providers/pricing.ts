import type { Model, ModelPricing } from "../core/types.ts";
import table from "./pricing.json" with { type: "json" };

const prices: Record<string, Record<string, ModelPricing | string>> = table as unknown as Record<
  string,
  Record<string, ModelPricing | string>
>;

const DATE_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2})$/;

/**
 * The price of a model in USD per million tokens: `model.pricing` when set, else the built-in
 * table (`pricing.json`; dated ids fall back to their alias). `openai-compatible` models are never
 * looked up: they always run against some other server (a base URL is required), whose prices the
 * table does not know, even for an OpenAI model id. Undefined when unknown: callers then mark the
 * cost unknown, never 0.
 */
export function priceFor(model: Model): ModelPricing | undefined {
  if (model.pricing) return model.pricing;
  const provider = model.provider === "openai-compatible" ? undefined : model.provider;
  if (!provider) return undefined;
  const byModel = prices[provider];
  if (!byModel) return undefined;
  const found = byModel[model.id] ?? byModel[model.id.replace(DATE_SUFFIX, "")];
  return typeof found === "object" ? found : undefined;
}
