/**
 * Secret canaries and the search for them: a canary is a unique value with characters that JSON
 * escapes and URL encoding changes, so each of its forms differs from the raw one; `findCanaries`
 * looks for every canary in raw, JSON-escaped, URL-encoded and base64 form (standard and URL-safe,
 * at each of the three byte offsets it can start at inside a longer encoded text, also across the
 * line breaks of wrapped base64) and, when asked, reversed (what `| rev` would leave).
 */
import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { base64Cores } from "../../src/output/token-shapes.ts";

/** A fresh canary for `place` (e.g. "input-github-token"). */
export function canary(place: string): string {
  return `cnry-${place}-${randomBytes(6).toString("hex")}/+"\\%&=end`;
}

/** The encoded forms of `secret` looked for (raw first). */
export function formsOf(secret: string): Record<string, string[]> {
  const bytes = Buffer.from(secret);
  const cores = base64Cores(bytes);
  return {
    raw: [secret],
    json: [JSON.stringify(secret).slice(1, -1)],
    url: [encodeURIComponent(secret)],
    base64: [...cores, ...cores.map((c) => c.replace(/\+/g, "-").replace(/\//g, "_"))],
  };
}

export interface Finding {
  canary: string;
  form: string;
  where: string;
}

/**
 * Every place in `texts` (name → text) where a canary shows in any form; `reversed` also looks for
 * each form reversed. Base64 is also looked for with line breaks removed (wrapped output).
 */
export function findCanaries(
  canaries: readonly string[],
  texts: Record<string, string>,
  options: { reversed?: boolean } = {},
): Finding[] {
  const findings: Finding[] = [];
  for (const [where, text] of Object.entries(texts)) {
    const joined = text.replace(/\r?\n/g, "");
    for (const secret of canaries) {
      for (const [form, variants] of Object.entries(formsOf(secret))) {
        for (const variant of variants) {
          const candidates = options.reversed ? [variant, [...variant].reverse().join("")] : [variant];
          for (const candidate of candidates) {
            const hay = form === "base64" ? joined : text;
            if (hay.includes(candidate)) {
              findings.push({
                canary: secret,
                form: candidate === variant ? form : `${form} reversed`,
                where,
              });
            }
          }
        }
      }
    }
  }
  return findings;
}

/** The text of every file under `dir` (recursive), by path relative to `dir`; {} when it does not exist. */
export async function filesUnder(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = await readFile(file, "latin1");
  }
  return out;
}

/**
 * A shell loop doing `action` for each ancestor of the command that runs it, `$p` its PID: an
 * attack on every process above the model's command, whatever processes stand between it and the
 * runner (the exec server does, unsandboxed).
 */
export function eachAncestor(action: string): string {
  return `p=$PPID; while [ "$p" -gt 1 ]; do ${action}; p=$(awk '{print $4}' /proc/$p/stat); done`;
}
