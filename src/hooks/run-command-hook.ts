import type { AgentToolResult } from "../core/types.ts";
import { formatSpecDuration } from "../spec/duration.ts";
import { renderTemplate, type TemplatePart } from "../spec/template.ts";
import { DEFAULT_CAPS, formatBytes } from "../system/caps.ts";
import { scrubEnv } from "../system/env.ts";
import { defaultElisionMarker } from "../system/head-tail-buffer.ts";
import { type ProcessResult, runProcess } from "../system/process.ts";
import { truncateHeadTail } from "../system/truncate.ts";
import type { HookEvent, HookOutcome, HookPoint } from "./events.ts";
import { callPath, stringArg } from "./match.ts";

/** What the hooks need from the runner. */
export interface HookDeps {
  /** The workspace root: commands run there, paths are relative to it. */
  workspace: string;
  /** The environment command hooks start from; credential-like names are removed. */
  env: NodeJS.ProcessEnv;
  emit(event: HookEvent): void;
  /** Clock in ms. Default: Date.now. */
  now?(): number;
  /** The current turn (1-based), for AGENT_RUN_TURN and the hooks' stdin. */
  getTurn(): number;
  /** Cost so far in USD; null when unknown (a model without a price). */
  getCost(): number | null;
  /**
   * Rewrites each command hook before it starts, e.g. to run it inside a sandbox. Default: none.
   * It receives the complete (scrubbed) environment and returns the one to start with.
   */
  wrapCommand?: CommandWrapper;
  /**
   * Bytes of output (stdout and stderr together) a command hook may print before its process
   * group is killed (`caps.command_output`). Default: `DEFAULT_CAPS.commandOutputBytes` (32 MiB).
   */
  maxOutputBytes?: number;
}

/** A command as it is about to be started (no shell around `file`). */
export interface HookCommand {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/** See `HookDeps.wrapCommand`. */
export type CommandWrapper = (command: HookCommand) => HookCommand;

/** Bytes of stdout and of stderr a command hook may keep in memory: 256 KiB each. */
export const HOOK_MAX_BUFFER = 256 * 1024;
/** What a hook may add to what the model sees: 200 lines / 8 KiB, head and tail kept. */
export const HOOK_OUTPUT_MAX_LINES = 200;
export const HOOK_OUTPUT_MAX_BYTES = 8 * 1024;

/** One command hook invocation. */
export interface CommandHookCall {
  hook: HookPoint;
  rule: number;
  parts: TemplatePart[];
  timeoutMs: number;
  /** The tool call the hook is about, if any. */
  tool?: { name: string; id: string; args: unknown };
  /** Extra fields of the JSON on stdin. */
  payload?: Record<string, unknown>;
}

export interface CommandHookRun {
  command: string;
  result: ProcessResult;
  /** Bytes written, kept or not. */
  stdoutBytes: number;
  stderrBytes: number;
  /** The output cap the command ran under (`HookDeps.maxOutputBytes`). */
  outputCapBytes: number;
}

/**
 * Runs a command hook: `bash --norc --noprofile -c <command>` in the workspace, `{{ tool.* }}` filled in
 * shell-quoted, the call as JSON on stdin (`{ hook, tool, arguments, tool_call_id, turn,
 * workspace, … }`), a scrubbed environment plus `AGENT_RUN_HOOK`, `AGENT_RUN_TOOL`,
 * `AGENT_RUN_TOOL_CALL_ID`, `AGENT_RUN_TURN` and `AGENT_RUN_WORKSPACE`. Never rejects; the process
 * group is killed on timeout or abort. Emits `hook_start`; the caller emits `hook_end` once it
 * knows what the result means (see `emitHookEnd`).
 */
export async function runCommandHook(
  call: CommandHookCall,
  deps: HookDeps,
  signal: AbortSignal,
): Promise<CommandHookRun> {
  const tool = call.tool;
  const command = renderTemplate(
    call.parts,
    (ref) => {
      if (ref.name === "name") return tool?.name ?? "";
      if (ref.name === "path") return (tool && callPath(tool.args, deps.workspace)) ?? "";
      return (tool && stringArg(tool.args, ref.name)) ?? "";
    },
    { quote: true },
  );
  const turn = deps.getTurn();
  const ids = { hook: call.hook, rule: call.rule, ...(tool && { toolCallId: tool.id, toolName: tool.name }) };
  deps.emit({ type: "hook_start", ...ids, command });

  const env = {
    ...scrubEnv(deps.env).env,
    AGENT_RUN_HOOK: call.hook,
    AGENT_RUN_TOOL: tool?.name ?? "",
    AGENT_RUN_TOOL_CALL_ID: tool?.id ?? "",
    AGENT_RUN_TURN: String(turn),
    AGENT_RUN_WORKSPACE: deps.workspace,
  };
  const input = JSON.stringify({
    hook: call.hook,
    ...(tool && { tool: tool.name, arguments: tool.args, tool_call_id: tool.id }),
    turn,
    workspace: deps.workspace,
    ...call.payload,
  });
  // --norc: bash fed through a socket (Node's stdio) would otherwise source ~/.bashrc, as if run by sshd.
  const plain: HookCommand = {
    file: "bash",
    args: ["--norc", "--noprofile", "-c", command],
    cwd: deps.workspace,
    env,
  };
  const spawn = deps.wrapCommand ? deps.wrapCommand(plain) : plain;
  const outputCapBytes = deps.maxOutputBytes ?? DEFAULT_CAPS.commandOutputBytes;
  const result = await runProcess(spawn.file, spawn.args, {
    cwd: spawn.cwd,
    env: spawn.env,
    extendEnv: false,
    input,
    timeoutMs: call.timeoutMs,
    signal,
    maxBuffer: HOOK_MAX_BUFFER,
    maxOutputBytes: outputCapBytes,
  });
  return {
    command,
    result,
    outputCapBytes,
    stdoutBytes: writtenBytes(result.stdout, result.stdoutDroppedBytes),
    stderrBytes: writtenBytes(result.stderr, result.stderrDroppedBytes),
  };
}

/** Bytes a stream carried: what was kept (less the elision marker) plus what was dropped. */
function writtenBytes(kept: string, dropped: number): number {
  const marker = dropped > 0 ? Buffer.byteLength(defaultElisionMarker(dropped)) : 0;
  return Buffer.byteLength(kept) - marker + dropped;
}

/** Characters of a failed hook's output kept for the summary (the end, where the verdict is). */
export const FAILURE_OUTPUT_CHARS = 4000;

/** Emits `hook_end` for a run, and `hook_failed` too when the outcome is an error or a failure. */
export function emitHookEnd(
  deps: HookDeps,
  call: CommandHookCall,
  run: CommandHookRun,
  outcome: HookOutcome,
  details: { reason?: string; outputTruncated?: boolean; failure?: string; output?: string } = {},
): void {
  const ids = {
    hook: call.hook,
    rule: call.rule,
    ...(call.tool && { toolCallId: call.tool.id, toolName: call.tool.name }),
  };
  deps.emit({
    type: "hook_end",
    ...ids,
    command: run.command,
    exitCode: run.result.exitCode ?? null,
    durationMs: run.result.durationMs,
    timedOut: run.result.timedOut,
    outcome,
    ...(details.reason !== undefined && { reason: oneLine(details.reason, 300) }),
    stdoutBytes: run.stdoutBytes,
    stderrBytes: run.stderrBytes,
    outputTruncated: details.outputTruncated ?? false,
  });
  if (details.failure !== undefined) {
    deps.emit({
      type: "hook_failed",
      ...ids,
      command: run.command,
      message: oneLine(details.failure, 500),
      ...(details.output?.trim() && { output: details.output.trim().slice(-FAILURE_OUTPUT_CHARS) }),
    });
  }
}

/** Why a run did not exit on its own with a code: timeout, abort, signal or spawn failure. */
export function abnormalEnd(run: CommandHookRun, timeoutMs: number): string | undefined {
  const { result } = run;
  if (result.outputCapped) {
    return `was stopped: its output passed the cap of ${formatBytes(run.outputCapBytes)} (caps.command_output)`;
  }
  if (result.timedOut) return `timed out after ${formatSpecDuration(timeoutMs)}`;
  if (result.canceled) return "was aborted";
  if (result.exitCode === undefined)
    return result.signal ? `was killed by ${result.signal}` : result.shortMessage;
  return undefined;
}

/**
 * Exit 126 / 127: the shell could not run the command (not executable, not found). The hook is
 * broken rather than reporting on the work, so it counts as a hook error.
 */
export function couldNotRun(run: CommandHookRun): string | undefined {
  const code = run.result.exitCode;
  if (code !== 126 && code !== 127) return undefined;
  const stderr = run.result.stderr.trim();
  return `could not run (exit ${code})${stderr ? `: ${oneLine(stderr, 200)}` : ""}`;
}

/**
 * The hook's output for the model: stdout then stderr, bounded (head and tail kept, the middle
 * counted), never more than HOOK_OUTPUT_MAX_BYTES whatever the hook printed.
 */
export function boundedOutput(run: CommandHookRun): { text: string; truncated: boolean } {
  const { result } = run;
  const joined = [result.stdout.trimEnd(), result.stderr.trimEnd()].filter(Boolean).join("\n");
  const cut = truncateHeadTail(joined, { maxLines: HOOK_OUTPUT_MAX_LINES, maxBytes: HOOK_OUTPUT_MAX_BYTES });
  const dropped = result.stdoutDroppedBytes + result.stderrDroppedBytes;
  const truncated = cut.truncated || dropped > 0;
  const note =
    dropped > 0
      ? `\n[${run.stdoutBytes + run.stderrBytes} bytes of hook output in total; only part shown]`
      : "";
  return { text: cut.content + note, truncated };
}

/** The text of a tool result's text parts, for hooks' stdin. */
export function resultText(result: AgentToolResult): string {
  return result.content
    .map((part) => (part.type === "text" ? part.text : `[${part.mimeType} image]`))
    .join("\n");
}

/** First line, at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const line = text.trim().split("\n")[0] ?? "";
  const more = text.trim().includes("\n") ? " …" : "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line + more;
}

/** Parses a hook's stdout as a JSON object: the whole text, else its last non-empty line. */
export function parseJsonObject(stdout: string): Record<string, unknown> | undefined {
  const read = readJsonObject(stdout);
  return read.kind === "object" ? read.value : undefined;
}

/**
 * A hook's stdout read as a JSON object (the whole text, else its last non-empty line): `object`
 * when one parses, `broken` when the whole text or the last line starts with `{` and neither
 * parses (a verdict the hook meant to give but garbled), `none` for plain output.
 */
export function readJsonObject(
  stdout: string,
): { kind: "object"; value: Record<string, unknown> } | { kind: "broken" } | { kind: "none" } {
  const text = stdout.trim();
  if (!text) return { kind: "none" };
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const candidates = [text, lines.at(-1)?.trim() ?? ""];
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (value !== null && typeof value === "object" && !Array.isArray(value))
        return { kind: "object", value: value as Record<string, unknown> };
    } catch {
      // Not JSON: plain output, or a broken verdict (below).
    }
  }
  return candidates.some((candidate) => candidate.startsWith("{")) ? { kind: "broken" } : { kind: "none" };
}
