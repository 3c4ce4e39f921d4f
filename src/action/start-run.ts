/**
 * The action's side of the run's process (run-child.ts): starts it on the same Node and entry with
 * an environment that holds no secret, hands it the plan and the credentials over its IPC channel,
 * relays its log (redacted in pieces, log-relay.ts) and forwards SIGINT / SIGTERM to it, so a
 * cancelled job still ends the run as interrupted with its outputs written. Resolves with the run's reply;
 * a process that ended without one (killed, crashed) gives a failure with exit code 4, or 130 / 143
 * when the action itself was interrupted.
 */
import { spawn } from "node:child_process";
import type { Redactor } from "../output/redact.ts";
import { createLogRelay } from "./log-relay.ts";
import {
  isProgressMessage,
  isRunReply,
  type ProgressSnapshot,
  RUN_CHILD_FLAG,
  type RunReply,
  type RunRequest,
} from "./run-protocol.ts";

export interface StartRunOptions {
  request: RunRequest;
  /** The run process's environment (`RunEnvironment.processEnv`). */
  env: Record<string, string>;
  /** Where the run's stdout goes, in chunks of whole lines. */
  write: (chunk: string) => void;
  /** Where the run's stderr goes, in chunks of whole lines. Default: the action's stderr. */
  writeError?: (chunk: string) => void;
  /** Applied to the run's log before it is written (log-relay.ts). */
  redactor: Pick<Redactor, "redact" | "pieceCuts">;
  /** The script the action runs from. Default: `process.argv[1]` (dist/index.js). */
  entry?: string;
  /** Each progress snapshot the run sends (with `request.progress`), as sent: the caller redacts it. */
  onProgress?: (snapshot: ProgressSnapshot) => void;
}

/** What the end of an unexpected process's stderr may show in the failure, in characters. */
const STDERR_TAIL = 2_000;

export async function startRun(options: StartRunOptions): Promise<RunReply> {
  const entry = options.entry ?? process.argv[1] ?? "";
  const child = spawn(process.execPath, [...process.execArgv, entry, RUN_CHILD_FLAG], {
    env: options.env,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let interrupted: NodeJS.Signals | undefined;
  const forward = (signal: NodeJS.Signals) => {
    interrupted ??= signal;
    child.kill(signal);
  };
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);

  let reply: RunReply | undefined;
  child.on("message", (message: unknown) => {
    if (isRunReply(message)) reply = message;
    else if (isProgressMessage(message)) options.onProgress?.(message.snapshot);
  });
  const stdout = createLogRelay(options.write, options.redactor);
  let stderrTail = "";
  const stderr = createLogRelay((chunk) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL);
    (options.writeError ?? ((text: string) => process.stderr.write(text)))(chunk);
  }, options.redactor);
  child.stdout?.setEncoding("utf8").on("data", stdout.write);
  child.stderr?.setEncoding("utf8").on("data", stderr.write);

  try {
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
      (resolve) => {
        child.once("error", (error) => resolve({ code: null, signal: null, error }));
        child.once("close", (code, signal) => resolve({ code, signal }));
        child.send(options.request, (error) => {
          if (error) child.kill("SIGKILL");
        });
      },
    );
    stdout.flush();
    stderr.flush();
    if (reply !== undefined) return reply;
    const how = ended.error
      ? `could not start: ${ended.error.message}`
      : ended.signal
        ? `was killed by ${ended.signal}`
        : `exited with code ${ended.code}`;
    const tail = stderrTail.trim();
    const message = `the run's process ${how} before it reported a result${tail ? `: ${tail.split("\n").at(-1)}` : ""}`;
    return {
      type: "failure",
      failure: { message, exitCode: interrupted === "SIGINT" ? 130 : interrupted === "SIGTERM" ? 143 : 4 },
    };
  } finally {
    process.off("SIGINT", forward);
    process.off("SIGTERM", forward);
  }
}
