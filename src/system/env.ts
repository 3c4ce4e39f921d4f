/**
 * Scrubbing credentials out of a child process's environment.
 *
 * A name looks like a credential when it matches (case-insensitively) one of
 * `SECRET_NAME_PATTERNS`: `*_API_KEY`, `*_TOKEN`, `*SECRET*`, `*PASSWORD*`, `*PASSWD*`,
 * `*_PRIVATE_KEY*`, `*_ACCESS_KEY`, `*_CREDENTIAL(S)`, `*_AUTH`, `GITHUB_TOKEN`,
 * `ACTIONS_RUNTIME_TOKEN`, `ACTIONS_ID_TOKEN_REQUEST_*` (plus the bare `API_KEY` and `TOKEN`).
 * This one rule decides both what the bash child does not get and what every output redacts
 * (src/output/redact.ts). Names on the pass-through list are kept whatever they look like.
 */

/** The patterns a variable name is tested against; `*` is any run of characters. */
export const SECRET_NAME_PATTERNS: readonly string[] = [
  "*_API_KEY",
  "API_KEY",
  "*_TOKEN",
  "TOKEN",
  "*SECRET*",
  "*PASSWORD*",
  "*PASSWD*",
  "*_PRIVATE_KEY*",
  "*_ACCESS_KEY",
  "*_CREDENTIAL",
  "*_CREDENTIALS",
  "*_AUTH",
  "GITHUB_TOKEN",
  "ACTIONS_RUNTIME_TOKEN",
  "ACTIONS_ID_TOKEN_REQUEST_*",
];

const SECRET_NAME = new RegExp(
  `^(?:${SECRET_NAME_PATTERNS.map((pattern) => pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")).join("|")})$`,
  "i",
);

/** True when an environment variable's name looks like a credential. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export interface ScrubEnvOptions {
  /** Names kept even when they look like credentials (exact, case-sensitive). */
  passThrough?: string[];
}

export interface ScrubbedEnv {
  env: Record<string, string>;
  /** Names removed, sorted. */
  removed: string[];
}

/** Returns a copy of `env` without credential-like variables (undefined values are dropped too). */
export function scrubEnv(
  env: Record<string, string | undefined>,
  options: ScrubEnvOptions = {},
): ScrubbedEnv {
  const keep = new Set(options.passThrough ?? []);
  const result: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretName(name) && !keep.has(name)) {
      removed.push(name);
      continue;
    }
    result[name] = value;
  }
  removed.sort();
  return { env: result, removed };
}
