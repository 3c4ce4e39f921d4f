import type { ModelPricing, Usage } from "./types.ts";

/** A usage record with every count and cost at zero. */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Adds `b` into `a` in place and returns `a`. An unknown cost on either side stays unknown. */
export function addUsage(a: Usage, b: Usage): Usage {
  a.input += b.input;
  a.output += b.output;
  a.cacheRead += b.cacheRead;
  a.cacheWrite += b.cacheWrite;
  a.totalTokens += b.totalTokens;
  a.cost.input += b.cost.input;
  a.cost.output += b.cost.output;
  a.cost.cacheRead += b.cost.cacheRead;
  a.cost.cacheWrite += b.cost.cacheWrite;
  a.cost.total += b.cost.total;
  if (b.costUnknown) a.costUnknown = true;
  return a;
}

/**
 * Fills `usage.cost` from token counts and a price table (USD per million tokens). Without a
 * price the cost is marked unknown rather than left as a silent 0.
 */
export function priceUsage(usage: Usage, pricing: ModelPricing | undefined): Usage {
  if (!pricing) {
    usage.cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
    if (usage.totalTokens > 0) usage.costUnknown = true;
    return usage;
  }
  const input = (usage.input * pricing.input) / 1e6;
  const output = (usage.output * pricing.output) / 1e6;
  const cacheRead = (usage.cacheRead * pricing.cacheRead) / 1e6;
  const cacheWrite = (usage.cacheWrite * pricing.cacheWrite) / 1e6;
  usage.cost = { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
  delete usage.costUnknown;
  return usage;
}
