import { modelLabel } from "../core/format.ts";
import type { KnownProvider, Model, ModelPricing } from "../core/types.ts";
import { ProviderConfigError } from "./errors.ts";
import { recipeHint, serverRecipe } from "./local-recipes.ts";

/** Providers this package can create. */
export const KNOWN_PROVIDERS: readonly KnownProvider[] = [
  "anthropic",
  "openai",
  "openai-compatible",
  "replay",
];

/**
 * The model the README, `--help`, the examples and error messages show: a current one, never one
 * the SDK marks deprecated (test/examples-use-current-models.test.ts checks every one of them).
 */
export const EXAMPLE_MODEL = "anthropic:claude-sonnet-5-5";
/** The OpenAI model shown beside it. */
export const EXAMPLE_OPENAI_MODEL = "openai:gpt-6-luna";

/** The task spec's object form of a model (snake_case, as written in YAML). */
export interface ModelRefObject {
  provider: string;
  id: string;
  /** openai only: "responses" (default) or "chat". */
  api?: string;
  base_url?: string;
  api_key_env?: string;
  /** Accepted for the spec's sake; the thinking level travels on each request, not on the model. */
  thinking?: string;
  max_output_tokens?: number;
  context_window?: number;
  temperature?: number;
  pricing?: { input: number; output: number; cache_read?: number; cache_write?: number };
}

/**
 * Parses `"provider:id"` (the id may itself contain colons, e.g. `openai-compatible:qwen3:8b`) or
 * the spec's object form into a `Model`. Throws `ProviderConfigError` with code `bad_model_ref`
 * or `unknown_provider`.
 */
export function parseModelRef(ref: string | ModelRefObject): Model {
  if (typeof ref !== "string") return fromObject(ref);
  const colon = ref.indexOf(":");
  if (colon <= 0 || colon === ref.length - 1) {
    throw new ProviderConfigError("bad_model_ref", `invalid model "${ref}": expected "provider:id"`, {
      detail: `e.g. "${EXAMPLE_MODEL}", "${EXAMPLE_OPENAI_MODEL}", "openai-compatible:qwen3:8b"`,
    });
  }
  const provider = ref.slice(0, colon).trim();
  const id = ref.slice(colon + 1).trim();
  checkProvider(provider, ref);
  return { provider, id };
}

function fromObject(ref: ModelRefObject): Model {
  if (!ref || typeof ref.provider !== "string" || typeof ref.id !== "string" || ref.id === "") {
    throw new ProviderConfigError("bad_model_ref", "invalid model: expected { provider, id }");
  }
  checkProvider(ref.provider, modelLabel(ref));
  const model: Model = { provider: ref.provider, id: ref.id };
  if (ref.api !== undefined) model.api = ref.api;
  if (ref.base_url !== undefined) model.baseUrl = ref.base_url;
  if (ref.api_key_env !== undefined) model.apiKeyEnv = ref.api_key_env;
  if (ref.max_output_tokens !== undefined) model.maxOutputTokens = ref.max_output_tokens;
  if (ref.context_window !== undefined) model.contextWindow = ref.context_window;
  if (ref.temperature !== undefined) model.temperature = ref.temperature;
  if (ref.pricing) model.pricing = toPricing(ref.pricing);
  return model;
}

/** The spec's snake_case price object → `ModelPricing` (missing cache prices default to 0). */
export function toPricing(p: {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}): ModelPricing {
  return { input: p.input, output: p.output, cacheRead: p.cache_read ?? 0, cacheWrite: p.cache_write ?? 0 };
}

function checkProvider(provider: string, ref: string): void {
  if ((KNOWN_PROVIDERS as readonly string[]).includes(provider)) return;
  const recipe = serverRecipe(provider);
  if (recipe) {
    throw new ProviderConfigError("unknown_provider", `unknown provider "${provider}" in model "${ref}"`, {
      detail: recipeHint(recipe, ref.slice(ref.indexOf(":") + 1)),
    });
  }
  const near = KNOWN_PROVIDERS.find((known) => known.startsWith(provider.slice(0, 3)));
  throw new ProviderConfigError("unknown_provider", `unknown provider "${provider}" in model "${ref}"`, {
    detail: `known providers: ${KNOWN_PROVIDERS.join(", ")}${near ? ` (did you mean "${near}"?)` : ""}`,
  });
}
