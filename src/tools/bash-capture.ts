/**
 * Runs the bash tool's process and collects its combined output: the child writes it into a file
 * itself (bash-output-file.ts), so none of it passes through this process's memory; only when that
 * file cannot be created does the output come through a pipe into a bounded buffer
 * (bash-output.ts). Either way `onView` gets the output so far while the command runs, at most
 * every `OUTPUT_UPDATE_INTERVAL_MS`, and the final view comes back with the process result.
 *
 * The saved output is bounded (`guard`, output-guard.ts): past its cap the command is stopped
 * (through the same abort as a cancel: its process group gets SIGTERM, then SIGKILL after the
 * grace), the file is cut back to what it may hold, and `outputStop` says so.
 */

import { fstatSync } from "node:fs";
import type { ProcessResult, RunProcessOptions, runProcess } from "../system/process.ts";
import { type BashOutputView, createBashOutput } from "./bash-output.ts";
import { createOutputFile, type OutputFile, shownWhole } from "./bash-output-file.ts";
import type { OutputGuard, OutputStop } from "./output-guard.ts";

/** Milliseconds between two live views of a running command's output: 250. */
export const OUTPUT_UPDATE_INTERVAL_MS = 250;
/**
 * Milliseconds between two counts of a running command's output lines while it grows: 10, doubled
 * after each count that found nothing new, up to OUTPUT_UPDATE_INTERVAL_MS. The count then happens
 * while the command writes, mostly on a core the command leaves idle, instead of after it ends:
 * `seq 1 3000000`'s 22.9 MB took the final view 36-72 ms here, beside the start of the look for
 * secrets' worker.
 */
export const OUTPUT_COUNT_INTERVAL_MS = 10;

export interface CaptureOptions {
  maxLines: number;
  maxBytes: number;
  /** Folder of the output file, kept as the full output when the view was cut. */
  spillDir: string;
  /** Prefix of the output file's name. */
  spillName: string;
  /** The output so far; called only when it changed. Its exceptions are ignored. */
  onView: (view: BashOutputView) => void;
  /** Bounds the saved output, per command and for the run. */
  guard: OutputGuard;
  /**
   * Told the output file's path as soon as the command has ended when the file is big enough to be
   * kept as the full output (its view is cut), before that view is read. Its exceptions are ignored.
   */
  onKept?: (file: string) => void;
}

export interface CapturedRun {
  result: ProcessResult;
  /** The final view; `fullOutputPath` exists on disk exactly when `truncation` is set. */
  view: BashOutputView;
  /** Set when the output passed a cap and the command was stopped for it. */
  outputStop?: CapturedStop;
}

/** An output stop, with how much the command had written when it was seen (at least). */
export interface CapturedStop extends OutputStop {
  writtenBytes: number;
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
  const stopper = new AbortController();
  const guarded = capture.guard.watch({ fd: output.fd, path: output.path }, () => stopper.abort());
  const signal = options.signal ? AbortSignal.any([options.signal, stopper.signal]) : stopper.signal;
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
  const counting = followCount(output);
  try {
    let result: ProcessResult;
    try {
      result = await run(file, args, {
        ...options,
        signal,
        outputFile: { fd: output.fd, path: output.path },
      });
    } finally {
      clearInterval(timer);
      await counting.stop();
      await polling;
    }
    const stop = guarded.check();
    if (capture.onKept && keptBySize(output.fd, capture.maxBytes)) {
      try {
        capture.onKept(output.path);
      } catch {}
    }
    const view = await output.view();
    keep = view.truncation !== undefined;
    return {
      result,
      view,
      ...(stop && { outputStop: { ...stop, writtenBytes: Math.max(guarded.peakBytes, stop.keptBytes) } }),
    };
  } finally {
    await output.finish(keep, true);
    guarded.end(keep);
  }
}

/** Counts `output`'s lines as it grows (see OUTPUT_COUNT_INTERVAL_MS) until `stop`. */
function followCount(output: OutputFile): { stop(): Promise<void> } {
  let delay = OUTPUT_COUNT_INTERVAL_MS;
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    current = output.count().then(
      (grew) => {
        delay = grew ? OUTPUT_COUNT_INTERVAL_MS : Math.min(delay * 2, OUTPUT_UPDATE_INTERVAL_MS);
        if (!stopped) timer = setTimeout(tick, delay);
      },
      () => {},
    );
  };
  timer = setTimeout(tick, delay);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      return current.then(() => {});
    },
  };
}

/** Whether the file open as `fd` is past what a view shows whole: then it is kept. */
function keptBySize(fd: number, maxBytes: number): boolean {
  try {
    return !shownWhole(fstatSync(fd).size, maxBytes);
  } catch {
    return false;
  }
}

async function runThroughPipe(
  run: typeof runProcess,
  file: string,
  args: string[],
  options: RunProcessOptions,
  capture: CaptureOptions,
): Promise<CapturedRun> {
  const stopper = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stopper.signal]) : stopper.signal;
  const output = createBashOutput({
    ...capture,
    maxSavedBytes: capture.guard.commandCapBytes,
    onStop: () => stopper.abort(),
  });
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
      signal,
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
  const view = output.view();
  const stop = output.stop();
  return { result, view, ...(stop && { outputStop: stop }) };
}
