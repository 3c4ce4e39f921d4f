/**
 * `120s`, `20m`, `1h30m`, `500ms`; a bare number means seconds. Here rather than in ./schema.ts,
 * which builds the spec's zod schema: the CLI parses `--timeout` with it, and `agent-run --version`
 * would load zod (~20 ms) for nothing.
 */
export const DURATION_PATTERN = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A spec duration in milliseconds: `120s`, `20m`, `1h30m`, `500ms`, or a number of seconds.
 * Returns undefined for anything else (and for zero).
 */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === "number")
    return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) : undefined;
  if (!DURATION_PATTERN.test(value)) return undefined;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(amount) * (UNIT_MS[unit!] ?? 0);
  }
  return total > 0 ? Math.round(total) : undefined;
}

const UNIT_ALIASES: Record<string, string> = {
  sec: "s",
  secs: "s",
  second: "s",
  seconds: "s",
  min: "m",
  mins: "m",
  minute: "m",
  minutes: "m",
  hr: "h",
  hrs: "h",
  hour: "h",
  hours: "h",
  msec: "ms",
  millis: "ms",
  milliseconds: "ms",
};

/**
 * A corrected spelling for a near-miss duration, if there is one: `120 sec` → `120s`, `5min` →
 * `5m`, `1 hour 30 mins` → `1h30m`, `1h 30m` → `1h30m`.
 */
export function suggestDuration(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed.length > 100) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return `${trimmed}s`;
  let rest = trimmed;
  let out = "";
  while (rest !== "") {
    const match = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]+)(?:\s*,\s*|\s+and\s+|\s+)?/.exec(rest);
    if (!match) return undefined;
    const unit = match[2]!.toLowerCase();
    const canonical = UNIT_MS[unit] !== undefined ? unit : UNIT_ALIASES[unit];
    if (!canonical) return undefined;
    out += `${match[1]}${canonical}`;
    rest = rest.slice(match[0].length);
  }
  return out !== "" && out !== value && parseDuration(out) !== undefined ? out : undefined;
}

/** Renders milliseconds the way a spec would write them: `2m`, `90s`, `1500ms`. */
export function formatSpecDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
