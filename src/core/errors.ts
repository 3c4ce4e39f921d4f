/**
 * The one error family of agent-run, and the one table from an error to an exit code (DESIGN §4).
 *
 * Every error we raise on purpose is an `AgentRunError` (or a subclass adding fields, such as
 * `SpecError`'s problems): a stable `code`, a `kind` that decides the exit code, a one-line
 * `shortMessage` for annotations, a full `message` for logs, an optional `location` in a file,
 * and the original error as `cause`. Callers branch on `kind` and `code`, never on the message or
 * on a class name (the bundle minifies class names; `isAgentRunError` checks a brand instead).
 */

/** DESIGN §4's exit codes. Never blur `failure` (the agent could not do it) and `error` (retry the job). */
export const EXIT = {
  success: 0,
  failure: 1,
  usage: 2,
  limit: 3,
  error: 4,
  sigint: 130,
  sigterm: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * What went wrong, which fixes the exit code:
 * - `usage`: the job is set up wrong (bad spec, flag, input or config; a sandbox that must run but
 *   cannot; a workspace or outputs dir that cannot be used); nothing ran. Exit 2.
 * - `infrastructure`: a provider, the disk, git or the runner itself failed. Exit 4: retry the job.
 * - `tool`: a tool refused or failed one call; the model sees the message and goes on. Never ends a
 *   run by itself; if one escapes to the top it is a runner bug, exit 4.
 */
export type ErrorKind = "usage" | "infrastructure" | "tool";

const EXIT_BY_KIND: Record<ErrorKind, ExitCode> = {
  usage: EXIT.usage,
  infrastructure: EXIT.error,
  tool: EXIT.error,
};

/** A place in a file; line and column are 1-based (0 when the problem is not in the file). */
export interface ErrorLocation {
  file: string;
  line: number;
  column: number;
}

export interface AgentRunErrorOptions {
  /** One line for annotations and terminals. Default: the message's first line. */
  shortMessage?: string;
  location?: ErrorLocation;
  cause?: unknown;
}

const BRAND = Symbol.for("agent-run.error");

/** The base of every error agent-run raises on purpose. */
export class AgentRunError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  readonly shortMessage: string;
  readonly location: ErrorLocation | undefined;
  readonly [BRAND] = true;

  constructor(kind: ErrorKind, code: string, message: string, options: AgentRunErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AgentRunError";
    this.kind = kind;
    this.code = code;
    this.shortMessage = options.shortMessage ?? message.split("\n", 1)[0] ?? message;
    this.location = options.location;
  }

  /** The exit code of a run that ends with this error (DESIGN §4). */
  get exitCode(): ExitCode {
    return EXIT_BY_KIND[this.kind];
  }
}

/** True for any `AgentRunError`, also one from another copy of this module (a second bundle). */
export function isAgentRunError(error: unknown): error is AgentRunError {
  return typeof error === "object" && error !== null && (error as { [BRAND]?: unknown })[BRAND] === true;
}

/** The exit code for an error that reached the top: its kind's code, else 4 (a bug: retry, report). */
export function exitCodeOf(error: unknown): ExitCode {
  return isAgentRunError(error) ? error.exitCode : EXIT.error;
}

/** The message of anything thrown, without a stack. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
