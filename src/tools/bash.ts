import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { z } from "zod";
import type { AgentContext, AgentTool, AgentToolResult } from "../core/types.ts";
import { DEFAULT_CAPS, formatBytes, formatBytesApprox } from "../system/caps.ts";
import { scrubEnv } from "../system/env.ts";
import { runProcess } from "../system/process.ts";
import { isTimerDelay, MAX_TIMER_MS } from "../system/timer.ts";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  formatSize,
  type TruncationResult,
} from "../system/truncate.ts";
import { type CapturedStop, runCaptured } from "./bash-capture.ts";
import type { ToolOperations } from "./operations.ts";
import { createOutputGuard, type OutputGuard } from "./output-guard.ts";
import { checkCommand } from "./policy/index.ts";

/** Default bash timeout: 120000 ms. */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** The largest per-call `timeout` the schema accepts, in seconds: the longest a timer can wait (2^31-1 ms). */
export const MAX_CALL_TIMEOUT_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/** What is about to run; `prepare` may return a changed copy. */
export interface BashExecution {
  /** The script given to `bash -c` (commandPrefix included). */
  command: string;
  cwd: string;
  /** The complete child environment (already scrubbed of secrets). */
  env: Record<string, string>;
}

export interface BashPrepareContext {
  toolCallId: string;
  signal: AbortSignal;
  context: AgentContext;
}

/** Rewrites a command before it runs (e.g. to run it in a container). Runs after the policy check. */
export type BashPrepare = (
  execution: BashExecution,
  ctx: BashPrepareContext,
) => BashExecution | Promise<BashExecution>;

export interface BashToolOptions {
  /** Prepended to every command on its own line, e.g. "set -euo pipefail". */
  commandPrefix?: string;
  prepare?: BashPrepare;
  /**
   * Timeout in milliseconds, also the ceiling of a call's own `timeout` (in seconds), which can only
   * shorten it. Default: 120000.
   */
  timeoutMs?: number;
  /** Command patterns; if present, only matching commands run (see policy/judge.ts). */
  allow?: string[];
  /** Command patterns that never run. */
  deny?: string[];
  /**
   * Globs (relative to `cwd`) that, under an allow or deny list, no redirection or writing program
   * (`> f`, `tee f`, `eslint --fix f`) may write. Default: none.
   */
  protectedPaths?: string[];
  /** Default: 2000. */
  maxLines?: number;
  /** Default: 51200. */
  maxBytes?: number;
  /** Base environment of the child. Default: process.env. Scrubbed of credentials unless `scrubEnv` is false. */
  env?: Record<string, string | undefined>;
  /** Variable names kept even though they look like credentials. */
  passThroughEnv?: string[];
  /** Default: true. */
  scrubEnv?: boolean;
  /**
   * Folder of each command's output file (mode 0400, written by the child itself): kept as
   * `fullOutputPath` when the output was cut, deleted otherwise. Default: os.tmpdir().
   */
  spillDir?: string;
  /**
   * Bounds each command's saved output and all of them together (see output-guard.ts): the run's
   * guard, shared and disposed by the runner. Default: a guard of the tool's own, with
   * `maxSavedOutputBytes` per command and `DEFAULT_CAPS.savedOutputBytes` (256 MiB) in all.
   */
  outputGuard?: OutputGuard;
  /** Bytes one command's saved output may hold when no `outputGuard` is given. Default: 32 MiB. */
  maxSavedOutputBytes?: number;
  /**
   * Told a command's saved output file as soon as the command has ended when it is big enough to be
   * kept as the full output, before the tool reads its view (bash-capture.ts). Its exceptions are
   * ignored.
   */
  onOutputKept?: (file: string) => void;
  /** Milliseconds between SIGTERM and SIGKILL on timeout or abort. Default: 2000. */
  killGraceMs?: number;
  /** Where the command runs (`run`). Default: runProcess in the runner's process. */
  operations?: Partial<ToolOperations>;
}

export const bashParameters = z.strictObject({
  command: z.string().min(1).describe("Bash command(s) to run in the workspace root"),
  timeout: z
    .number()
    .positive()
    .max(MAX_CALL_TIMEOUT_SECONDS)
    .optional()
    .describe(
      "Timeout in seconds; can only shorten the configured one. Default: the configured timeout (120 unless set)",
    ),
});
export type BashToolInput = z.infer<typeof bashParameters>;

export interface BashToolDetails {
  /** The command as the model gave it. */
  command: string;
  /** Undefined when the process was killed (timeout, abort) or by a signal. */
  exitCode: number | undefined;
  signal?: string;
  durationMs: number;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the output was cut for the model. */
  truncation?: TruncationResult;
  /** The full output, when it was larger than the budget. */
  fullOutputPath?: string;
  totalBytes: number;
  totalLines: number;
  /** Names of the environment variables removed as credentials. */
  scrubbedEnv: string[];
  /** Set when the command was stopped because its saved output passed a cap. */
  outputStop?: CapturedStop;
}

/**
 * The bash tool: runs `bash -c` in the workspace root, in its own process group, judged by the
 * allow/deny policy, with a scrubbed environment; the child writes its output into a file in
 * `spillDir` (see bash-capture.ts), the output so far goes to `onUpdate` while it runs, and what the
 * model sees keeps the head and the tail; the file is kept as the full output when that was cut.
 */
export function createBashTool(
  cwd: string,
  options: BashToolOptions = {},
): AgentTool<BashToolInput, BashToolDetails> {
  const root = resolve(cwd);
  const run = options.operations?.run ?? runProcess;
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const guard =
    options.outputGuard ??
    createOutputGuard({
      commandCapBytes: options.maxSavedOutputBytes ?? DEFAULT_CAPS.commandOutputBytes,
      totalCapBytes: DEFAULT_CAPS.savedOutputBytes,
    });
  const policy = {
    ...(options.allow !== undefined && { allow: options.allow }),
    ...(options.deny !== undefined && { deny: options.deny }),
  };
  const allowNote = options.allow ? ` Only these commands are allowed: ${options.allow.join(", ")}.` : "";

  return {
    name: "bash",
    label: "Bash",
    description: `Run a bash command in the workspace root. Output (stdout and stderr together) is cut to ${maxLines} lines or ${formatSize(maxBytes)}, keeping the start and the end; the full output is then saved to a file. Timeout ${Math.round((options.timeoutMs ?? DEFAULT_BASH_TIMEOUT_MS) / 1000)} s (a call's \`timeout\` can only shorten it).${allowNote}`,
    parameters: bashParameters,
    async execute(toolCallId, params, signal, onUpdate, context): Promise<AgentToolResult<BashToolDetails>> {
      const verdict = await checkCommand(params.command, policy, {
        workspace: root,
        ...(options.protectedPaths && { protectedPaths: options.protectedPaths }),
      });
      if (!verdict.allowed) throw new Error(`Command refused by the bash policy: ${verdict.reason}`);

      const scrubbed =
        options.scrubEnv === false
          ? { env: definedOnly(options.env ?? process.env), removed: [] }
          : scrubEnv(options.env ?? process.env, { passThrough: options.passThroughEnv ?? [] });
      let execution: BashExecution = {
        command: options.commandPrefix ? `${options.commandPrefix}\n${params.command}` : params.command,
        cwd: root,
        env: scrubbed.env,
      };
      if (options.prepare) execution = await options.prepare(execution, { toolCallId, signal, context });

      const timeoutMs = effectiveTimeoutMs(params.timeout, options.timeoutMs ?? DEFAULT_BASH_TIMEOUT_MS);
      const started = Date.now();
      const base = { command: params.command, scrubbedEnv: scrubbed.removed };
      const { result, view, outputStop } = await runCaptured(
        run,
        "bash",
        ["-c", execution.command],
        {
          cwd: execution.cwd,
          env: execution.env,
          extendEnv: false,
          timeoutMs,
          signal,
          ...(options.killGraceMs !== undefined && { killGraceMs: options.killGraceMs }),
        },
        {
          maxLines,
          maxBytes,
          spillDir: options.spillDir ?? tmpdir(),
          spillName: `agent-run-bash-${toolCallId.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40) || "call"}`,
          guard,
          ...(options.onOutputKept && { onKept: options.onOutputKept }),
          onView: (partial) =>
            onUpdate({
              content: [{ type: "text", text: partial.text }],
              details: {
                ...base,
                exitCode: undefined,
                durationMs: Date.now() - started,
                timedOut: false,
                aborted: false,
                totalBytes: partial.totalBytes,
                totalLines: partial.totalLines,
              },
            }),
        },
      );
      if (result.exitCode === undefined && !result.signal && !result.timedOut && !result.canceled) {
        throw new Error(`bash could not be started in ${execution.cwd}: ${result.shortMessage}`);
      }

      const status = outputStop
        ? stopStatus(outputStop, view.truncation && view.fullOutputPath)
        : result.timedOut
          ? `Command timed out after ${timeoutMs / 1000} s and was killed (with everything it started).`
          : result.canceled
            ? "Command aborted and killed (with everything it started)."
            : result.exitCode === undefined
              ? `Command killed by ${result.signal}.`
              : `Exit code: ${result.exitCode}`;
      const body = view.totalBytes === 0 ? "(no output)" : view.text.replace(/\n$/, "");
      const details: BashToolDetails = {
        ...base,
        exitCode: result.exitCode,
        ...(result.signal !== undefined && { signal: result.signal }),
        durationMs: result.durationMs,
        timedOut: result.timedOut,
        aborted: result.canceled,
        ...(view.truncation && { truncation: view.truncation }),
        ...(view.truncation && view.fullOutputPath !== undefined && { fullOutputPath: view.fullOutputPath }),
        totalBytes: view.totalBytes,
        totalLines: view.totalLines,
        ...(outputStop && { outputStop }),
      };
      // A command that was killed did not finish its job: an error result, details kept.
      return {
        content: [{ type: "text", text: `${body}\n\n[${status}]` }],
        details,
        ...((result.timedOut || result.canceled || outputStop) && { isError: true }),
      };
    },
  };
}

/** What the model is told about a command stopped for its output. */
function stopStatus(stop: CapturedStop, savedPath: string | undefined): string {
  const cap =
    stop.reason === "command"
      ? `the cap of ${formatBytes(stop.capBytes)} on one command's saved output (caps.command_output)`
      : `the cap of ${formatBytes(stop.capBytes)} on all saved outputs of this run (caps.saved_outputs)`;
  const kept =
    stop.keptBytes > 0 && savedPath !== undefined
      ? `its first ${formatBytesApprox(stop.keptBytes)} are kept in ${savedPath}; above are the start and the end of those`
      : stop.keptBytes > 0
        ? `above is what was kept (${formatBytesApprox(stop.keptBytes)})`
        : "nothing of it could be kept";
  return `Command stopped (its process group was killed): its output reached ${cap} after at least ${formatBytesApprox(stop.writtenBytes)}; ${kept}. Print less: filter the output (grep, head, tail) or count it (wc).`;
}

/**
 * A call's `timeout` (seconds) can only shorten the configured one (ms), the spec's ceiling; a
 * configured timeout a timer cannot hold (0, above 2^31-1 ms) means none, so the call's applies.
 */
function effectiveTimeoutMs(callSeconds: number | undefined, configuredMs: number): number {
  if (callSeconds === undefined) return configuredMs;
  const callMs = callSeconds * 1000;
  return isTimerDelay(configuredMs) ? Math.min(callMs, configuredMs) : callMs;
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) result[name] = value;
  return result;
}
