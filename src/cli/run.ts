import { errorText } from "../core/validate.ts";
import { ProviderConfigError } from "../providers/index.ts";
import type { CompactRunEvent } from "../run/compact-event.ts";
import { createTextRenderer, type TextRenderMode } from "../run/render-text.ts";
import { runTask } from "../run/run-task.ts";
import { EXIT, RunSetupError } from "../run/types.ts";
import { formatSpecProblems, SpecError } from "../spec/index.ts";
import type { CliCommand } from "./args.ts";

/** After a signal, the run has this long to write its outputs before the process exits anyway. */
const SIGNAL_GRACE_MS = 4500;

export async function runCommand(command: Extract<CliCommand, { kind: "run" }>): Promise<number> {
  const controller = new AbortController();
  let forced: NodeJS.Timeout | undefined;
  const onSignal = (signal: "SIGINT" | "SIGTERM") => {
    if (controller.signal.aborted) return;
    process.stderr.write(`agent-run: ${signal} received, stopping and writing the outputs\n`);
    controller.abort(signal);
    forced = setTimeout(
      () => process.exit(signal === "SIGINT" ? EXIT.sigint : EXIT.sigterm),
      SIGNAL_GRACE_MS,
    );
    forced.unref();
  };
  const sigint = () => onSignal("SIGINT");
  const sigterm = () => onSignal("SIGTERM");
  process.on("SIGINT", sigint);
  process.on("SIGTERM", sigterm);

  const render = command.json
    ? jsonRenderer()
    : createTextRenderer({ write: (s) => process.stderr.write(s), mode: textMode() });
  try {
    const result = await runTask({
      taskFile: command.taskFile,
      vars: command.vars,
      signal: controller.signal,
      onEvent: render,
      ...(command.model !== undefined && { model: command.model }),
      ...(command.prompt !== undefined && { prompt: command.prompt }),
      ...(command.cwd !== undefined && { cwd: command.cwd }),
      ...(command.out !== undefined && { outDir: command.out }),
      ...(command.replay !== undefined && { replay: command.replay }),
      ...(command.record !== undefined && { record: command.record }),
      ...(command.maxTurns !== undefined && { maxTurns: command.maxTurns }),
      ...(command.maxCostUsd !== undefined && { maxCostUsd: command.maxCostUsd }),
      ...(command.timeoutMs !== undefined && { timeoutMs: command.timeoutMs }),
    });
    if (!command.json) process.stderr.write(`outputs: ${result.outputs.dir}\n`);
    return result.exitCode;
  } catch (error) {
    if (error instanceof SpecError) {
      process.stderr.write(`${formatSpecProblems(error.problems, { color: useColor() })}\n`);
      return EXIT.usage;
    }
    if (error instanceof ProviderConfigError || error instanceof RunSetupError) {
      process.stderr.write(`agent-run: ${error.message}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`agent-run: internal error: ${errorText(error)}\n`);
    return EXIT.error;
  } finally {
    clearTimeout(forced);
    process.off("SIGINT", sigint);
    process.off("SIGTERM", sigterm);
  }
}

function jsonRenderer(): (event: CompactRunEvent) => void {
  return (event) => {
    process.stdout.write(`${JSON.stringify(event)}\n`);
  };
}

function textMode(): TextRenderMode {
  if (process.env.GITHUB_ACTIONS === "true") return "github";
  return process.stderr.isTTY ? "tty" : "plain";
}

function useColor(): boolean {
  return process.stderr.isTTY === true && !process.env.NO_COLOR;
}
