/**
 * Writes `patch.diff`, `usage.json` and `summary.md` at the end of a run, whatever ended it, in
 * order of value: the patch first (the work itself), then usage.json, then the summary. Each write
 * is atomic (./atomic-write.ts), a failing one does not stop the next, and when the disk is full our
 * own files that the run can do without give way first (./free-space.ts).
 */
import path from "node:path";
import { errorText } from "../core/errors.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import type { ComputedPatch } from "./diff.ts";
import { formatDiffstat } from "./diffstat.ts";
import { isNoSpace, removeOwnFiles, roomIsShort } from "./free-space.ts";
import type { Redactor } from "./redact.ts";
import { GITHUB_COMMENT_LIMIT, MAX_DIFFSTAT_FILES, renderSummary } from "./summary.ts";
import type { RunRecord, WorkspaceDiff } from "./types.ts";
import { writeUsageJson } from "./usage-json.ts";
import { type WrittenPatch, writePatch } from "./write-patch.ts";

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

export interface OutputPaths {
  patchPath: string;
  usagePath: string;
  summaryPath: string;
}

export interface RunOutputsInput {
  /** The patch git wrote; undefined when it could not be computed (an empty patch.diff is written). */
  patch: ComputedPatch | undefined;
  /** Why there is no patch, for the summary. */
  diffError?: string;
  redactor: Pick<Redactor, "redact" | "redactDeep" | "redactLatin1" | "pieceCuts">;
  /** The run's record, made once the patch is written (`patch` is undefined when that failed). */
  record: (written: { patch: WrittenPatch | undefined; freed: boolean }) => RunRecord;
  /** Our own files and folders that give way when the disk is full (the spill folder). */
  disposable?: string[];
  /**
   * Awaited before `disposable` is removed: whatever still reads those files closes them first,
   * since an open file's room is freed only when it is closed.
   */
  beforeFreeing?: () => Promise<void>;
  /** Passed to `renderSummary`. Default: 65,536. */
  maxSummaryChars?: number;
}

export interface RunOutputsWritten {
  paths: OutputPaths;
  record: RunRecord;
  /** The summary as rendered (redacted), whether or not summary.md could be written. */
  summary: string;
  patch: WrittenPatch | undefined;
  /** One line per file that could not be written, naming it. Empty when all three were. */
  errors: string[];
  /** Whether `disposable` files were removed to make room. */
  freed: boolean;
}

/** Writes the three end-of-run files into `dir`, in order of value (see the module comment). Never rejects. */
export async function writeRunOutputs(dir: string, input: RunOutputsInput): Promise<RunOutputsWritten> {
  const paths = pathsIn(dir);
  const redact = input.redactor.redact;
  const errors: string[] = [];
  let freed = false;
  const makeRoom = async () => {
    if (freed || !input.disposable) return false;
    await input.beforeFreeing?.();
    freed = await removeOwnFiles(input.disposable);
    return freed;
  };
  if (input.disposable && (await roomIsShort(dir, (input.patch?.bytes ?? 0) * 2))) await makeRoom();
  const attempt = async <T>(file: string, write: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await withRoom(write, makeRoom);
    } catch (error) {
      errors.push(`could not write ${file}: ${errorText(error)}`);
      return undefined;
    }
  };

  const patch = input.patch;
  const written = await attempt(paths.patchPath, () =>
    patch
      ? writePatch(patch, paths.patchPath, {
          redactor: input.redactor,
          headChars: input.maxSummaryChars ?? GITHUB_COMMENT_LIMIT,
        })
      : writeFileAtomic(paths.patchPath, "").then(() => undefined),
  );
  const record = input.redactor.redactDeep(input.record({ patch: written, freed }));
  const files = patch && written ? patch.files : [];
  await attempt(paths.usagePath, () => writeUsageJson(dir, record, files, redact));
  const diff: WorkspaceDiff | null =
    patch && written
      ? {
          patch: written.head,
          ...(!written.complete && { patchSize: written.bytes }),
          files,
          diffstat: redact(formatDiffstat(files, undefined, MAX_DIFFSTAT_FILES)),
        }
      : null;
  const diffError = input.diffError ?? (patch && !written ? errors[0] : undefined);
  const summary = redact(
    renderSummary(record, diff, {
      ...(diffError !== undefined && { diffError: redact(diffError) }),
      ...(input.maxSummaryChars !== undefined && { maxChars: input.maxSummaryChars }),
    }),
  );
  await attempt(paths.summaryPath, () => writeFileAtomic(paths.summaryPath, summary));
  return { paths, record, summary, patch: written, errors, freed };
}

async function withRoom<T>(write: () => Promise<T>, makeRoom: () => Promise<boolean>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isNoSpace(error) || !(await makeRoom())) throw error;
    return write();
  }
}

function pathsIn(dir: string): OutputPaths {
  return {
    patchPath: path.join(dir, OUTPUT_FILES.patch),
    usagePath: path.join(dir, OUTPUT_FILES.usage),
    summaryPath: path.join(dir, OUTPUT_FILES.summary),
  };
}

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

/**
 * The same three files from a diff held in memory (a library caller's, a test's): each written
 * through a temp file and a rename, in order, every one attempted; the first error is rethrown,
 * with the file named, once all three were.
 */
export async function writeOutputs(dir: string, input: WriteOutputsInput): Promise<OutputPaths> {
  const redact = input.redactor?.redact ?? ((text: string) => text);
  const record = input.redactor ? input.redactor.redactDeep(input.record) : input.record;
  const diff = input.diff
    ? { ...input.diff, patch: redact(input.diff.patch), diffstat: redact(input.diff.diffstat) }
    : null;
  const diffError = input.diffError === undefined ? undefined : redact(input.diffError);
  const paths = pathsIn(dir);
  const steps: Array<[string, () => Promise<unknown>]> = [
    [
      paths.patchPath,
      () => writeFileAtomic(paths.patchPath, diff?.patch ?? "", diff?.patchEncoding ?? "utf8"),
    ],
    [paths.usagePath, () => writeUsageJson(dir, record, diff?.files ?? [], redact)],
    [
      paths.summaryPath,
      () =>
        writeFileAtomic(
          paths.summaryPath,
          redact(
            renderSummary(record, diff, {
              ...(diffError !== undefined && { diffError }),
              ...(input.maxSummaryChars !== undefined && { maxChars: input.maxSummaryChars }),
            }),
          ),
        ),
    ],
  ];
  let first: Error | undefined;
  for (const [file, write] of steps) {
    try {
      await write();
    } catch (error) {
      first ??= new Error(`could not write ${file}: ${errorText(error)}`, {
        cause: error,
      });
    }
  }
  if (first) throw first;
  return paths;
}
