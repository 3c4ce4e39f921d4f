import data from "./sdk-models.json" with { type: "json" };

/** A model the SDK marks deprecated: its end-of-life (shutdown) date, or why it is listed anyway. */
export interface SdkDeprecation {
  /** ISO date (YYYY-MM-DD) of the end of life the SDK announces. */
  date?: string;
  /** The SDK's words when it gives no date ("Not a supported model ID."). */
  note?: string;
}

/** What one provider SDK says about models, read from the installed package (scripts/sdk-models.ts). */
export interface SdkModelList {
  /** The package and version it was read from, e.g. "openai@7.55.0". */
  sdk: string;
  /** Every model id the SDK's model type lists, in the SDK's order (newest families first). */
  models: string[];
  deprecated: Record<string, SdkDeprecation>;
  /** Models the SDK warns about when sent `thinking: { type: "enabled" }` (Anthropic only). */
  adaptiveThinking?: string[];
}

export type SdkProvider = "anthropic" | "openai";

export interface SdkModels {
  anthropic: SdkModelList;
  openai: SdkModelList;
}

/** The generated file, as read at build time. */
export const SDK_MODELS: SdkModels = data as SdkModels;

/** The JSON text scripts/gen-sdk-models.ts writes (stable: a test compares it byte for byte). */
export function renderSdkModels(models: SdkModels): string {
  return `${JSON.stringify(
    {
      $comment:
        "Generated from the installed provider SDKs by scripts/gen-sdk-models.ts (npm run sdk-models); do not edit. A test fails while it is stale.",
      ...models,
    },
    null,
    2,
  )}\n`;
}

const DATE_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2})$/;

/** The id without a snapshot date (`claude-haiku-4-5-20251001` → `claude-haiku-4-5`). */
export function undated(id: string): string {
  return id.replace(DATE_SUFFIX, "");
}

export function isSdkProvider(provider: string): provider is SdkProvider {
  return provider === "anthropic" || provider === "openai";
}

/** The SDK's deprecation of `id`, or of the alias a dated snapshot belongs to. */
export function sdkDeprecation(provider: SdkProvider, id: string): SdkDeprecation | undefined {
  const table = SDK_MODELS[provider].deprecated;
  return table[id] ?? table[undated(id)];
}

/** Whether the SDK's model type lists `id` (or the alias of a dated snapshot). */
export function sdkLists(provider: SdkProvider, id: string): boolean {
  const models = SDK_MODELS[provider].models;
  return models.includes(id) || models.includes(undated(id));
}

/**
 * The model to move to from a deprecated one: the first model in the SDK's list of the same family
 * (the id with its version numbers taken out: `claude-sonnet-4-5` and `claude-sonnet-5-5` are
 * `claude-sonnet`, `gpt-5-mini` and `gpt-5.4-mini` are `gpt-mini`) that is newer, undated and not
 * deprecated. Undefined when the SDK lists none.
 */
export function sdkReplacement(provider: SdkProvider, id: string): string | undefined {
  const { family, version } = familyOf(undated(id));
  const { models, deprecated } = SDK_MODELS[provider];
  return models.find((candidate) => {
    if (candidate !== undated(candidate) || deprecated[candidate]) return false;
    const other = familyOf(candidate);
    return other.family === family && compareVersions(other.version, version) > 0;
  });
}

const VERSION_WORD = /^(?:o?\d+(?:\.\d+)?[a-z]?)$/;

function familyOf(id: string): { family: string; version: number[] } {
  const words = id.split("-");
  const version: number[] = [];
  const family: string[] = [];
  for (const word of words) {
    if (VERSION_WORD.test(word)) {
      version.push(...(word.match(/\d+/g) ?? []).map(Number));
      if (word.startsWith("o")) family.push("o");
    } else family.push(word);
  }
  return { family: family.join("-"), version };
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}
