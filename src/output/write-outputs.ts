/** Writes `patch.diff`, `usage.json` and `summary.md` at the end of a run, whatever ended it. */
import path from "node:path";
import { errorText } from "../core/errors.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import type { Redactor } from "./redact.ts";
import { renderSummary } from "./summary.ts";
import type { RunRecord, WorkspaceDiff } from "./types.ts";
import { writeUsageJson } from "./usage-json.ts";

/** File names in the outputs dir (DESIGN §5). */
export const OUTPUT_FILES = {
  patch: "patch.diff",
  usage: "usage.json",
  summary: "summary.md",
  events: "events.jsonl",
  /** What `--resume` reads (src/run/resume/transcript-file.ts). */
  transcript: "transcript.json",
  /** The structured result of a task with `output_schema`, written only when the run succeeded. */
  result: "result.json",
} as const;

export interface WriteOutputsInput {
  record: RunRecord;
  /** Null (or absent) when the diff failed: an empty patch is written and the summary says so. */
  diff?: WorkspaceDiff | null;
  /** Why the diff failed, for the summary. */
  diffError?: string;
  /** Redacts record, patch and summary. Default: nothing redacted. */
  redactor?: Pick<Redactor, "redact" | "redactDeep">;
  /** Passed to `renderSummary`. Default: 65,536. */
  maxSummaryChars?: number;
}

export interface OutputPaths {
  patchPath: string;
  usagePath: string;
  summaryPath: string;
}

/**
 * Writes the three end-of-run files into `dir` (created if needed), each through a temp file and
 * a rename. Secrets are redacted from every file. A failure writing one file does not stop the
 * others; the first error is rethrown, with the file named, once all three were attempted.
 */
export async function writeOutputs(dir: string, input: WriteOutputsInput): Promise<OutputPaths> {
  const redact = input.redactor?.redact ?? ((text: string) => text);
  const record = input.redactor ? input.redactor.redactDeep(input.record) : input.record;
  const diff = input.diff
    ? { ...input.diff, patch: redact(input.diff.patch), diffstat: redact(input.diff.diffstat) }
    : null;
  const diffError = input.diffError === undefined ? undefined : redact(input.diffError);
  const paths: OutputPaths = {
    patchPath: path.join(dir, OUTPUT_FILES.patch),
    usagePath: path.join(dir, OUTPUT_FILES.usage),
    summaryPath: path.join(dir, OUTPUT_FILES.summary),
  };
  const summary = () =>
    redact(
      renderSummary(record, diff, {
        ...(diffError !== undefined && { diffError }),
        ...(input.maxSummaryChars !== undefined && { maxChars: input.maxSummaryChars }),
      }),
    );
  const results = await Promise.allSettled([
    attempt(paths.patchPath, () => writeFileAtomic(paths.patchPath, diff?.patch ?? "", encodingOf(diff))),
    attempt(paths.usagePath, () => writeUsageJson(dir, record, diff?.files ?? [], redact)),
    attempt(paths.summaryPath, () => writeFileAtomic(paths.summaryPath, summary())),
  ]);
  for (const result of results) if (result.status === "rejected") throw result.reason;
  return paths;
}

function encodingOf(diff: WorkspaceDiff | null): BufferEncoding {
  return diff?.patchEncoding === "latin1" ? "latin1" : "utf8";
}

async function attempt(file: string, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    throw new Error(`could not write ${file}: ${errorText(error)}`, {
      cause: error,
    });
  }
}
