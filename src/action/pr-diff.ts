/**
 * The pull request's diff as the task gets it: merge base...head (what GitHub shows as the PR's
 * changes; on `pull_request` GITHUB_SHA is the merge commit and is not used), written to a file
 * for the run (`{{ vars.pr_diff_file }}`, copied into the outputs dir by the runner), cut at
 * `maxBytes` on a line with a note naming what was cut; and the new-side lines of the whole diff,
 * which review comments are checked against. Fails, instead of handing over an empty or wrong
 * diff, when the workspace is no git checkout or the merge base cannot be found.
 */
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { formatCount } from "../core/format.ts";
import type { RunPullRequest } from "../run/pull-request.ts";
import { git } from "./checkout-trust.ts";
import { createDiffLineReader } from "./diff-lines.ts";
import { findMergeBase } from "./pr-fetch.ts";
import type { PullRequestInfo } from "./pull-request-info.ts";

/** Default cap of the diff file: 1 MiB. */
export const DEFAULT_PR_DIFF_MAX_BYTES = 1024 * 1024;
/** Files named in the note of a cut diff before "and N more". */
const LISTED_CUT_FILES = 20;

export interface PrDiffOptions {
  pr: PullRequestInfo;
  /** A folder of the checkout (the agent's workspace). */
  dir: string;
  /** Where the diff file goes (a new folder is made in it). Default: the OS temp dir. */
  tempDir?: string;
  token?: string;
  serverUrl: string;
  /** Default: `DEFAULT_PR_DIFF_MAX_BYTES`. */
  maxBytes?: number;
}

export type PrDiffOutcome =
  | { ok: true; pullRequest: RunPullRequest; mergeBase: string; bytes: number; cut: boolean; fetches: number }
  | { ok: false; message: string };

/** Never throws. */
export async function preparePrDiff(options: PrDiffOptions): Promise<PrDiffOutcome> {
  const { pr } = options;
  const top = await git(["rev-parse", "--show-toplevel"], { cwd: options.dir });
  if (top.failed || top.stdout.trim() === "") {
    return {
      ok: false,
      message: `${options.dir} is not a git checkout, so the pull request's diff cannot be computed (check the repository out with actions/checkout first)`,
    };
  }
  const repoRoot = top.stdout.trim();
  const base = await findMergeBase({
    repoRoot,
    baseSha: pr.baseSha,
    headSha: pr.headSha,
    baseRef: pr.baseRef,
    prNumber: pr.number,
    ...(options.token !== undefined && { token: options.token }),
    serverUrl: options.serverUrl,
  });
  if (!base.ok) return base;

  const folder = await mkdtemp(path.join(options.tempDir || os.tmpdir(), "agent-run-pr-diff-"));
  const full = path.join(folder, "full.diff");
  const diff = await git(
    [
      "diff",
      "--no-color",
      "--no-ext-diff",
      "--no-textconv",
      "-M",
      `--output=${full}`,
      base.mergeBase,
      pr.headSha,
      "--",
    ],
    { cwd: repoRoot },
  );
  if (diff.failed) {
    return {
      ok: false,
      message: `git diff ${base.mergeBase.slice(0, 12)}...${pr.headSha.slice(0, 12)} failed: ${diff.stderr.trim() || diff.shortMessage}`,
    };
  }
  const diffFile = path.join(folder, "pr.diff");
  const capped = await capDiff(full, diffFile, options.maxBytes ?? DEFAULT_PR_DIFF_MAX_BYTES);
  await rm(full, { force: true });
  return {
    ok: true,
    pullRequest: {
      baseSha: pr.baseSha,
      headSha: pr.headSha,
      diffFile,
      review: { repoRoot, commentableLines: capped.lines },
    },
    mergeBase: base.mergeBase,
    bytes: capped.bytes,
    cut: capped.cut,
    fetches: base.fetches,
  };
}

/** Copies `source` to `target` up to `maxBytes` (whole lines), reading every line for the line map. */
async function capDiff(source: string, target: string, maxBytes: number) {
  const reader = createDiffLineReader();
  const out = await open(target, "wx");
  let written = 0;
  let total = 0;
  let cut = false;
  const cutFiles: string[] = [];
  let cutCount = 0;
  let lastCutFile: string | undefined;
  try {
    const lines = createInterface({ input: createReadStream(source), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      reader.line(line);
      const bytes = Buffer.byteLength(line) + 1;
      total += bytes;
      if (!cut && written + bytes <= maxBytes) {
        await out.write(`${line}\n`);
        written += bytes;
        continue;
      }
      cut = true;
      const file = reader.file ?? "(unknown file)";
      if (file !== lastCutFile && !cutFiles.includes(file)) {
        cutCount++;
        if (cutFiles.length < LISTED_CUT_FILES) cutFiles.push(file);
      }
      lastCutFile = file;
    }
    if (cut) {
      const more = cutCount > cutFiles.length ? `, and ${cutCount - cutFiles.length} more` : "";
      await out.write(
        `# agent-run: this diff was cut at ${formatCount(written)} of ${formatCount(total)} bytes; ` +
          `left out in whole or in part (${cutCount} file${cutCount === 1 ? "" : "s"}): ${cutFiles.join(", ")}${more}. ` +
          `Read those files in the workspace, or run git diff on them.\n`,
      );
    }
  } finally {
    await out.close();
  }
  return { lines: reader.result(), bytes: written, cut };
}
