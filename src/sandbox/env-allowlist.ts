/**
 * The environment a sandboxed command starts with: nothing of the runner's but the names below,
 * the caller's extra names and `AGENT_RUN_*`. An allowlist rather than a denylist, so a secret
 * under a harmless-looking name (`DEPLOY_KEY_B64`, `NPM_RC`) stays out too.
 */

/** Variables a sandboxed command keeps from the runner's environment (when set). */
export const SANDBOX_ENV_ALLOWLIST: readonly string[] = [
  "PATH",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "TERM",
  "TZ",
  "CI",
  "USER",
  "LOGNAME",
  "SHELL",
  "NO_COLOR",
  "FORCE_COLOR",
  "GITHUB_ACTIONS",
  "GITHUB_REPOSITORY",
  "GITHUB_SHA",
  "GITHUB_REF",
  "GITHUB_BASE_REF",
  "GITHUB_HEAD_REF",
  "GITHUB_EVENT_NAME",
  "RUNNER_OS",
  "RUNNER_ARCH",
];

/** Set in every sandbox whatever the runner's environment says: /tmp is a fresh tmpfs. */
const FIXED = { TMPDIR: "/tmp" } as const;

/**
 * The sandbox's environment: allowlisted names, `passThrough` names and `AGENT_RUN_*` taken from
 * `env` (undefined values dropped), `HOME` set to `home`, `TMPDIR=/tmp`.
 */
export function sandboxEnv(
  env: Record<string, string | undefined>,
  options: { home: string; passThrough?: readonly string[] },
): Record<string, string> {
  const keep = new Set([...SANDBOX_ENV_ALLOWLIST, ...(options.passThrough ?? [])]);
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (keep.has(name) || name.startsWith("AGENT_RUN_")) result[name] = value;
  }
  return { ...result, ...FIXED, HOME: options.home };
}
