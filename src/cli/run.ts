import { errorText, exitCodeOf, isAgentRunError } from "../core/errors.ts";
import { useFetchHeadersGlobally } from "../providers/fetch-classes.ts";
import { createJsonRenderer, createTextRenderer, type TextRenderMode } from "../render/index.ts";
import { runTask } from "../run/run-task.ts";
import { formatSpecProblems, SpecError } from "../spec/index.ts";
import { noteStopSignal } from "../system/exit-now.ts";
import type { CliCommand } from "./args.ts";

/**
 * Once the outputs are written after a signal, the process exits this long later even if something
 * still holds the event loop (a stuck child): the run is over, nothing is lost by ending.
 */
const EXIT_AFTER_OUTPUTS_MS = 1000;

export async function runCommand(command: Extract<CliCommand, { kind: "run" }>): Promise<number> {
  // Before a provider SDK loads (src/providers/fetch-classes.ts).
  useFetchHeadersGlobally();
  // A closed pipe (`agent-run … --json | head`) must not take the run down: its outputs and exit
  // code matter more than the rest of the log.
  const stdout = guardedWriter(process.stdout);
  const stderr = guardedWriter(process.stderr);
  // The first SIGINT or SIGTERM stops the run; a later one says the process must end soon (CI
  // kills it a few seconds after), so the outputs are written with what there is. No signal ends
  // the process before patch.diff is written: only SIGKILL can.
  const controller = new AbortController();
  const hurry = new AbortController();
  let interrupted = false;
  const onSignal = (signal: "SIGINT" | "SIGTERM") => {
    // Another may come while the process ends: it ends through process.exit, whose handlers
    // catch it, whatever the run's code (src/system/exit-now.ts).
    noteStopSignal();
    if (controller.signal.aborted) {
      if (!hurry.signal.aborted) stderr(`agent-run: ${signal} received again, writing the outputs now\n`);
      hurry.abort(signal);
      return;
    }
    interrupted = true;
    stderr(`agent-run: ${signal} received, stopping and writing the outputs\n`);
    controller.abort(signal);
  };
  const sigint = () => onSignal("SIGINT");
  const sigterm = () => onSignal("SIGTERM");
  process.on("SIGINT", sigint);
  process.on("SIGTERM", sigterm);
  let exitCode: number | undefined;

  const render = command.json
    ? createJsonRenderer(stdout, process.env.GITHUB_ACTIONS === "true")
    : createTextRenderer({
        write: stderr,
        mode: textMode(),
        ...(process.stderr.isTTY && process.stderr.columns > 0 && { columns: process.stderr.columns }),
      });
  try {
    const result = await runTask({
      taskFile: command.taskFile,
      vars: command.vars,
      signal: controller.signal,
      hurry: hurry.signal,
      onEvent: render,
      ...(command.model !== undefined && { model: command.model }),
      ...(command.prompt !== undefined && { prompt: command.prompt }),
      ...(command.cwd !== undefined && { cwd: command.cwd }),
      ...(command.out !== undefined && { outDir: command.out }),
      ...(command.replay !== undefined && { replay: command.replay }),
      ...(command.record !== undefined && { record: command.record }),
      ...(command.resume !== undefined && { resume: command.resume }),
      ...(command.maxTurns !== undefined && { maxTurns: command.maxTurns }),
      ...(command.maxCostUsd !== undefined && { maxCostUsd: command.maxCostUsd }),
      ...(command.timeoutMs !== undefined && { timeoutMs: command.timeoutMs }),
    });
    if (result.outputsError !== undefined) stderr(`agent-run: ${result.outputsError}\n`);
    else if (!command.json) stderr(`outputs: ${result.outputs.dir}\n`);
    if (interrupted) setTimeout(() => process.exit(result.exitCode), EXIT_AFTER_OUTPUTS_MS).unref();
    exitCode = result.exitCode;
    return result.exitCode;
  } catch (error) {
    if (error instanceof SpecError) {
      stderr(`${formatSpecProblems(error.problems, { color: useColor() })}\n`);
    } else if (isAgentRunError(error)) {
      stderr(`agent-run: ${error.message}\n`);
    } else {
      stderr(`agent-run: internal error: ${errorText(error)}\n`);
    }
    return exitCodeOf(error);
  } finally {
    // The outputs are written: a stop signal from here on ends the process with the run's code
    // rather than the signal's (CI's second signal often lands while the process is exiting).
    // Set before the run's own go, so that no moment is left without a listener.
    const code = exitCode;
    if (code !== undefined) {
      process.once("SIGINT", () => process.exit(code));
      process.once("SIGTERM", () => process.exit(code));
    }
    process.off("SIGINT", sigint);
    process.off("SIGTERM", sigterm);
  }
}

/** A writer that goes quiet once its stream fails (EPIPE and the like) instead of throwing. */
function guardedWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let broken = false;
  stream.on("error", () => {
    broken = true;
  });
  return (text) => {
    if (broken) return;
    try {
      stream.write(text);
    } catch {
      broken = true;
    }
  };
}

function textMode(): TextRenderMode {
  if (process.env.GITHUB_ACTIONS === "true") return "github";
  return process.stderr.isTTY ? "tty" : "plain";
}

function useColor(): boolean {
  return process.stderr.isTTY === true && !process.env.NO_COLOR;
}
