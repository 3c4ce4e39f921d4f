/**
 * Makes the pull request's head, base and merge base present in the checkout, fetching over the
 * checkout's own remote (`origin`) with the credentials the checkout keeps, or, when it keeps none
 * (`persist-credentials: false`), with the step's token (read access is enough). A shallow clone
 * (actions/checkout's default, depth 1, often of the merge commit, which holds neither the head
 * nor the base) is deepened in bounded steps (`DEEPEN_STEPS`, then the whole history once) until
 * `git merge-base` finds the merge base. The working tree and the index are never touched.
 */
import type { GitResult } from "../output/git.ts";
import { git } from "./checkout-trust.ts";

/** The first fetch's depth, then how far each further fetch deepens; after these, the whole history once. */
export const DEEPEN_STEPS: readonly number[] = [32, 128, 512, 2048];
/** How long one fetch may take, in milliseconds: 3 minutes. */
export const FETCH_TIMEOUT_MS = 180_000;

export interface MergeBaseOptions {
  /** The repository's root. */
  repoRoot: string;
  baseSha: string;
  headSha: string;
  baseRef: string;
  prNumber: number;
  /** For `persist-credentials: false` checkouts of the step's own server. */
  token?: string;
  /** The GitHub server (GITHUB_SERVER_URL), whose https remotes the token is for. */
  serverUrl: string;
}

export type MergeBaseOutcome =
  | { ok: true; mergeBase: string; fetches: number }
  | { ok: false; message: string };

/** Never throws. */
export async function findMergeBase(options: MergeBaseOptions): Promise<MergeBaseOutcome> {
  const { repoRoot, baseSha, headSha } = options;
  const env = await credentialEnv(options);
  let fetches = 0;
  const run = async (flags: string[], refs: string[]): Promise<GitResult> => {
    fetches++;
    return git(["fetch", "--no-tags", "--quiet", ...flags, "origin", ...refs], {
      cwd: repoRoot,
      env,
      timeoutMs: FETCH_TIMEOUT_MS,
    });
  };
  const shallow = async () =>
    (await git(["rev-parse", "--is-shallow-repository"], { cwd: repoRoot })).stdout.trim() === "true";

  const firstDepth = DEEPEN_STEPS[0] ?? 32;
  let lastError = "";
  for (const [sha, fallback] of [
    [headSha, `+refs/pull/${options.prNumber}/head:refs/agent-run/pr-head`],
    [baseSha, `+refs/heads/${options.baseRef}:refs/agent-run/pr-base`],
  ] as const) {
    if (await hasCommit(repoRoot, sha)) continue;
    const depth = (await shallow()) ? [`--depth=${firstDepth}`] : [];
    let result = await run(depth, [sha]);
    if (!(await hasCommit(repoRoot, sha))) result = await run(depth, [fallback]);
    if (!(await hasCommit(repoRoot, sha))) {
      lastError = result.stderr.trim().split("\n").at(-1) ?? "";
      return {
        ok: false,
        message: `commit ${sha.slice(0, 12)} of pull request #${options.prNumber} is not in the checkout and could not be fetched from origin${lastError ? ` (${lastError})` : ""}`,
      };
    }
  }

  for (let step = 1; ; step++) {
    const base = await git(["merge-base", baseSha, headSha], { cwd: repoRoot });
    const found = base.stdout.trim();
    if (!base.failed && found !== "") return { ok: true, mergeBase: found, fetches };
    if (!(await shallow())) break;
    const deepen = DEEPEN_STEPS[step];
    const result = await run(deepen === undefined ? ["--unshallow"] : [`--deepen=${deepen}`], [
      headSha,
      baseSha,
    ]);
    if (result.failed) lastError = result.stderr.trim().split("\n").at(-1) ?? "";
    if (deepen === undefined) {
      const last = await git(["merge-base", baseSha, headSha], { cwd: repoRoot });
      if (!last.failed && last.stdout.trim() !== "")
        return { ok: true, mergeBase: last.stdout.trim(), fetches };
      break;
    }
  }
  return {
    ok: false,
    message: `no merge base of the pull request's base ${baseSha.slice(0, 12)} and head ${headSha.slice(0, 12)} was found${lastError ? ` (the last fetch said: ${lastError})` : " in the whole history"}, so the right diff cannot be computed`,
  };
}

async function hasCommit(repoRoot: string, sha: string): Promise<boolean> {
  return !(await git(["cat-file", "-e", `${sha}^{commit}`], { cwd: repoRoot })).failed;
}

/**
 * The token as an `http.<server>/.extraheader`, through GIT_CONFIG_* variables (never the command
 * line, which other processes can read), when origin is an https URL of the server and the
 * repository configures no such header itself (two Authorization headers are refused).
 */
async function credentialEnv(options: MergeBaseOptions): Promise<Record<string, string>> {
  if (!options.token) return {};
  const url = (await git(["remote", "get-url", "origin"], { cwd: options.repoRoot })).stdout.trim();
  let server: URL;
  let remote: URL;
  try {
    server = new URL(options.serverUrl);
    remote = new URL(url);
  } catch {
    return {};
  }
  if (remote.protocol !== "https:" || remote.host !== server.host) return {};
  const configured = await git(["config", "--get-regexp", "^http\\..*\\.extraheader$"], {
    cwd: options.repoRoot,
  });
  if (!configured.failed && configured.stdout.trim() !== "") return {};
  const basic = Buffer.from(`x-access-token:${options.token}`).toString("base64");
  return {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: `http.${server.origin}/.extraheader`,
    GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}`,
  };
}
