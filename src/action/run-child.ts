/**
 * The run's own process: `node dist/index.js --agent-run-child`, started by the action with an
 * environment that holds no secret (run-environment.ts), so no `/proc/<pid>/environ` the model's
 * commands or file tools can reach in this process shows one. The plan and the credentials come
 * once, over the IPC channel, and stay in memory; the log goes to stdout (the action redacts it and
 * guards it against workflow commands); progress snapshots (when asked for) and the result go back
 * over the channel.
 *
 * SIGINT and SIGTERM (forwarded by the action, or sent to the whole process group by the Actions
 * runner: either way, maybe twice) end the run as interrupted, so its outputs are still written.
 */
import { errorText, exitCodeOf } from "../core/errors.ts";
import { useFetchHeadersGlobally } from "../providers/fetch-classes.ts";
import { exitWhenFlushed, noteStopSignal } from "../system/exit-now.ts";
import { createProgressTracker } from "./progress-tracker.ts";
import {
  isRunRequest,
  type ProgressMessage,
  type RunFailure,
  type RunReply,
  type RunRequest,
} from "./run-protocol.ts";
import type { ActionRunResult } from "./runner-types.ts";

/** Runs one request. Never throws: every failure is a reply. */
export async function runChild(): Promise<void> {
  if (typeof process.send !== "function") {
    process.stderr.write(
      "agent-run: --agent-run-child is started by the action itself, with an IPC channel\n",
    );
    process.exitCode = 2;
    return;
  }
  // Before a provider SDK loads (src/providers/fetch-classes.ts).
  useFetchHeadersGlobally();
  const controller = new AbortController();
  // Installed before the request is read, and kept: a second signal must not kill the process
  // while the run writes its outputs.
  const abort = (signal: NodeJS.Signals) => {
    noteStopSignal();
    if (!controller.signal.aborted) controller.abort(signal);
  };
  process.on("SIGINT", abort);
  process.on("SIGTERM", abort);
  const request = await receiveRequest();
  const reply = await execute(request, controller.signal);
  await new Promise<void>((resolve) => process.send?.(reply, undefined, {}, () => resolve()));
  process.disconnect?.();
  // The action waits for this process to end: ending now skips the heap's teardown (exit-now.ts).
  await exitWhenFlushed(0);
}

function receiveRequest(): Promise<RunRequest> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if (!isRunRequest(message)) return;
      process.off("message", onMessage);
      resolve(message);
    };
    process.on("message", onMessage);
  });
}

async function execute(request: RunRequest, signal: AbortSignal): Promise<RunReply> {
  try {
    const [runner, renderers] = await Promise.all([import("../run/index.ts"), import("../render/github.ts")]);
    const render = renderers.createGithubRenderer((chunk) => process.stdout.write(chunk));
    const progress = request.progress
      ? createProgressTracker((snapshot) => {
          const message: ProgressMessage = { type: "progress", snapshot };
          process.send?.(message);
        })
      : undefined;
    const result = await runner.runTask({
      ...request.options,
      env: { ...process.env, ...request.secretEnv },
      secretValues: request.secretValues,
      signal,
      onEvent: progress
        ? (event) => {
            render(event);
            progress.handle(event);
          }
        : render,
    });
    progress?.flush();
    const reply: ActionRunResult = {
      conclusion: result.conclusion,
      exitCode: result.exitCode,
      ...(result.reason !== undefined && { reason: result.reason }),
      outputs: result.outputs,
      changedFiles: result.changedFiles,
      costUsd: result.costUsd,
      turns: result.turns,
      summaryMarkdown: result.summaryMarkdown,
      patchHadSecret: result.patchHadSecret,
      ...(result.review && { review: result.review }),
      ...(result.result !== undefined && { result: result.result }),
    };
    return { type: "result", result: reply };
  } catch (error) {
    return { type: "failure", failure: describeFailure(error) };
  }
}

/** The parts of an error the action's annotations read (see annotations.ts), as plain data. */
function describeFailure(error: unknown): RunFailure {
  const record = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
  const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));
  return {
    message: errorText(error),
    ...(typeof record.shortMessage === "string" && { shortMessage: record.shortMessage }),
    ...(typeof record.location === "object" &&
      record.location !== null && { location: plain(record.location) as RunFailure["location"] }),
    ...(Array.isArray(record.problems) && { problems: plain(record.problems) as unknown[] }),
    exitCode: exitCodeOf(error),
  };
}
