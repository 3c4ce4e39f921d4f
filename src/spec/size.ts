import { SIZE_PATTERN } from "./schema.ts";

const UNIT_BYTES: Record<string, number> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/**
 * A spec size in bytes: a whole number of bytes, or a number with a unit, `512KiB`, `32MiB`,
 * `1GiB` (powers of 1024) or `500KB`, `100MB`, `2GB` (powers of 1000), `64B`; the unit's case
 * does not matter. Returns undefined for anything else, and for less than one byte.
 */
export function parseSize(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) && value > 0 ? value : undefined;
  if (!SIZE_PATTERN.test(value)) return undefined;
  const match = /^(\d+(?:\.\d+)?)\s?([a-zA-Z]+)$/.exec(value);
  const unit = UNIT_BYTES[match?.[2]?.toLowerCase() ?? ""];
  if (!match || unit === undefined) return undefined;
  const bytes = Math.floor(Number(match[1]) * unit);
  return bytes > 0 ? bytes : undefined;
}

/** A corrected spelling for a near-miss size (`32M` → `32MiB`, `1 gig` → `1GiB`), if there is one. */
export function suggestSize(value: string): string | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(value);
  if (!match) return undefined;
  const unit = match[2]!.toLowerCase();
  const canonical: Record<string, string> = {
    "": "B",
    k: "KiB",
    kib: "KiB",
    m: "MiB",
    meg: "MiB",
    mib: "MiB",
    g: "GiB",
    gig: "GiB",
    gib: "GiB",
    kb: "KB",
    mb: "MB",
    gb: "GB",
    b: "B",
    bytes: "B",
  };
  const fixed = canonical[unit];
  return fixed ? `${match[1]}${fixed}` : undefined;
}
