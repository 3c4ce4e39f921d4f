import type { Model, ModelPricing } from "../core/types.ts";
import { modelInfo } from "./model-catalog.ts";

/**
 * The price of a model in USD per million tokens: `model.pricing` when set, else the dated
 * supplement, else the model catalog (`modelInfo`, which see; the catalog answers once
 * `loadModelCatalog()` has resolved). Undefined when unknown: callers then mark the cost unknown,
 * never 0.
 */
export function priceFor(model: Model): ModelPricing | undefined {
  return modelInfo(model).pricing;
}
