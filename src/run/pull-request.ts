/**
 * The pull request a run is about, as the action hands it over on pull-request events: its
 * commits as task variables (`{{ vars.pr_base_sha }}`, `{{ vars.pr_head_sha }}`) and its diff
 * (merge base...head, already capped by the action) copied into the outputs dir, where the tools
 * can read it and the patch never includes it (`{{ vars.pr_diff_file }}`).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ReviewTarget } from "./review-tool.ts";
import { writeOutputFile } from "./write-output-file.ts";

/** The name of the diff's copy in the outputs dir. */
export const PR_DIFF_FILE = "pr.diff";

export interface RunPullRequest {
  /** The PR's base commit as GitHub reports it. */
  baseSha: string;
  headSha: string;
  /** A file holding the diff from the merge base to the head. */
  diffFile: string;
  /** For review comments: the repository's root and the lines the diff shows. */
  review: ReviewTarget;
}

/** The task variables of a pull request whose diff is (or will be) at `diffPath`. */
export function pullRequestVars(pr: RunPullRequest, diffPath: string): Record<string, string> {
  return { pr_base_sha: pr.baseSha, pr_head_sha: pr.headSha, pr_diff_file: diffPath };
}

/** Copies the diff into `outDir` (which exists); returns the copy's path. */
export async function placePullRequestDiff(pr: RunPullRequest, outDir: string): Promise<string> {
  const target = path.join(outDir, PR_DIFF_FILE);
  await writeOutputFile(target, await readFile(pr.diffFile));
  return target;
}
