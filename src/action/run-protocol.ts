/**
 * The messages between the action's process and the run's own process (run-child.ts), sent over
 * the child's IPC channel (an anonymous socket pair: no other process can open it through
 * `/proc/<pid>/fd`, unlike a pipe). One request down, at start; progress snapshots up while the
 * run goes on (when asked for); one reply up, at the end. The log goes over the child's stdout
 * and stderr.
 */
import type { ActionRunOptions, ActionRunResult } from "./runner-types.ts";

/** The argument that makes the action's entry run as the run's process. */
export const RUN_CHILD_FLAG = "--agent-run-child";

/** What the runner gets besides these: its environment, the abort signal and the log renderer. */
export type ChildRunOptions = Omit<ActionRunOptions, "env" | "signal" | "onEvent" | "secretValues">;

export interface RunRequest {
  type: "run";
  options: ChildRunOptions;
  /** Credentials by variable name, added to the runner's environment in memory only. */
  secretEnv: Record<string, string>;
  /** Values withheld from the run that it redacts (`RunTaskOptions.secretValues`). */
  secretValues: string[];
  /** Send `ProgressMessage`s while the run goes on. */
  progress?: boolean;
}

/** One tool call as the progress comment shows it. */
export interface ProgressToolCall {
  name: string;
  /** A short form of the arguments (`shortArgs`). */
  args: string;
  status: "running" | "done" | "error" | "blocked";
  durationMs?: number;
}

/** Where the run is: what the progress comment shows. */
export interface ProgressSnapshot {
  turn: number;
  /** Cost so far in USD; null when a model's price is unknown. */
  costUsd: number | null;
  /** Tool calls so far. */
  toolCalls: number;
  /** The latest calls, oldest first (at most `MAX_PROGRESS_TOOLS`). */
  recent: ProgressToolCall[];
}

/** Tool calls a progress snapshot lists. */
export const MAX_PROGRESS_TOOLS = 6;

export interface ProgressMessage {
  type: "progress";
  snapshot: ProgressSnapshot;
}

/** Whether a message from the channel is a progress snapshot. */
export function isProgressMessage(message: unknown): message is ProgressMessage {
  if (typeof message !== "object" || message === null) return false;
  const record = message as { type?: unknown; snapshot?: unknown };
  return record.type === "progress" && typeof record.snapshot === "object" && record.snapshot !== null;
}

/** An error thrown before the run started (a bad spec, a missing key), as the annotations need it. */
export interface RunFailure {
  message: string;
  shortMessage?: string;
  location?: { file?: string; line?: number; column?: number };
  problems?: unknown[];
  /** DESIGN §4 exit code of the error. */
  exitCode: number;
}

export type RunReply = { type: "result"; result: ActionRunResult } | { type: "failure"; failure: RunFailure };

/** Whether a message from the channel is a reply (anything else is ignored). */
export function isRunReply(message: unknown): message is RunReply {
  if (typeof message !== "object" || message === null) return false;
  const type = (message as { type?: unknown }).type;
  return type === "result" || type === "failure";
}

/** Whether a message from the channel is a request. */
export function isRunRequest(message: unknown): message is RunRequest {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === "run";
}
