/**
 * Runs the bash tool's process and collects its combined output: the child writes it into a file
 * itself (bash-output-file.ts), so none of it passes through this process's memory; only when that
 * file cannot be created does the output come through a pipe into a bounded buffer
 * (bash-output.ts). Either way `onView` gets the output so far while the command runs, at most
 * every `OUTPUT_UPDATE_INTERVAL_MS`, and the final view comes back with the process result.
 */

import type { ProcessResult, RunProcessOptions, runProcess } from "../system/process.ts";
import { type BashOutputView, createBashOutput } from "./bash-output.ts";
import { createOutputFile, type OutputFile } from "./bash-output-file.ts";

/** Milliseconds between two live views of a running command's output: 250. */
export const OUTPUT_UPDATE_INTERVAL_MS = 250;

export interface CaptureOptions {
  maxLines: number;
  maxBytes: number;
  /** Folder of the output file, kept as the full output when the view was cut. */
  spillDir: string;
  /** Prefix of the output file's name. */
  spillName: string;
  /** The output so far; called only when it changed. Its exceptions are ignored. */
  onView: (view: BashOutputView) => void;
}

export interface CapturedRun {
  result: ProcessResult;
  /** The final view; `fullOutputPath` exists on disk exactly when `truncation` is set. */
  view: BashOutputView;
}

/** Runs `file args` with `options` through `run`, capturing stdout and stderr together. */
export async function runCaptured(
  run: typeof runProcess,
  file: string,
  args: string[],
  options: RunProcessOptions,
  capture: CaptureOptions,
): Promise<CapturedRun> {
  let output: OutputFile | undefined;
  try {
    output = await createOutputFile(capture);
  } catch {
    // The pipe path tries the same folder once output is cut and says why it could not save it.
    return runThroughPipe(run, file, args, options, capture);
  }
  return runIntoFile(output, run, file, args, options, capture);
}

async function runIntoFile(
  output: OutputFile,
  run: typeof runProcess,
  file: string,
  args: string[],
  options: RunProcessOptions,
  capture: CaptureOptions,
): Promise<CapturedRun> {
  let keep = false;
  let polling: Promise<void> | undefined;
  const poll = () => {
    polling ??= output
      .viewIfChanged()
      .then((view) => {
        if (view) capture.onView(view);
      })
      .catch(() => {})
      .finally(() => {
        polling = undefined;
      });
  };
  const timer = setInterval(poll, OUTPUT_UPDATE_INTERVAL_MS);
  try {
    let result: ProcessResult;
    try {
      result = await run(file, args, { ...options, outputFile: { fd: output.fd, path: output.path } });
    } finally {
      clearInterval(timer);
      await polling;
    }
    const view = await output.view();
    keep = view.truncation !== undefined;
    return { result, view };
  } finally {
    await output.finish(keep);
  }
}

async function runThroughPipe(
  run: typeof runProcess,
  file: string,
  args: string[],
  options: RunProcessOptions,
  capture: CaptureOptions,
): Promise<CapturedRun> {
  const output = createBashOutput(capture);
  let lastUpdate = 0;
  let pending: NodeJS.Timeout | undefined;
  const sendUpdate = () => {
    pending = undefined;
    lastUpdate = Date.now();
    try {
      capture.onView(output.view());
    } catch {}
  };
  let result: ProcessResult;
  try {
    result = await run(file, args, {
      ...options,
      maxBuffer: 4096,
      onOutputBytes: (chunk) => {
        output.write(chunk);
        const since = Date.now() - lastUpdate;
        if (since >= OUTPUT_UPDATE_INTERVAL_MS) sendUpdate();
        else pending ??= setTimeout(sendUpdate, OUTPUT_UPDATE_INTERVAL_MS - since);
      },
    });
  } finally {
    if (pending) clearTimeout(pending);
    output.close();
  }
  return { result, view: output.view() };
}
