/**
 * Reads and validates the action's inputs (action.yml). Pure over `getInput`, so tests pass a map
 * instead of setting `INPUT_*` variables; the default is `@actions/core`'s reader.
 */
import * as core from "@actions/core";
import { AgentRunError } from "../core/errors.ts";
import { parseAllowedBots } from "./trigger-trust.ts";

/** `comment` input: "true" always posts, "false" never, "on-change" only when the patch is not empty. */
export type CommentMode = "true" | "false" | "on-change";

/** The inputs, parsed. Empty inputs are `undefined`. */
export interface ActionInputs {
  task?: string;
  prompt?: string;
  model?: string;
  anthropicApiKey?: string;
  openaiApiKey?: string;
  githubToken?: string;
  /** Default: "true". */
  comment: CommentMode;
  /** Absent: the spec's `workdir` applies (the repository workspace for an inline prompt). */
  workingDirectory?: string;
  maxTurns?: number;
  /** In USD. */
  maxCostUsd?: number;
  /** From the `vars` input, one `KEY=VALUE` a line. Default: `{}`. */
  vars: Record<string, string>;
  replay?: string;
  /** An earlier run's outputs dir to continue (`resume`), as given. */
  resume?: string;
  /** Bots that may trigger a run (`allowed-bots`), lower-case, without `[bot]`; `*` for all. Default: none. */
  allowedBots: string[];
  /** Run on pull_request_target / workflow_run even when the checkout is not the workflow's own commit. Default: false. */
  allowUntrustedCheckout: boolean;
  /** Show the run's progress in the sticky comment. Default: true. */
  progress: boolean;
  /** Least time between two progress edits of the comment, in milliseconds. Default: 5 000 (the input is in seconds). */
  progressIntervalMs: number;
  /** Run even when the task already ran on this head commit. Default: false. */
  forceRerun: boolean;
}

/** Default of `progress-interval`, in seconds. */
export const DEFAULT_PROGRESS_INTERVAL_S = 5;

/** A bad input value. `input` is its name as written in action.yml. */
export class ActionInputError extends AgentRunError {
  readonly input: string;
  constructor(input: string, message: string) {
    super("usage", "action_input", `input '${input}': ${message}`);
    this.name = "ActionInputError";
    this.input = input;
  }
}

export type InputReader = (name: string) => string;

/** The inputs that hold credentials: masked before anything is logged, withheld from the run, redacted. */
export const SECRET_INPUTS = ["anthropic-api-key", "openai-api-key", "github-token"] as const;

/**
 * The inputs of action.yml that hold no credential: withheld from the run's environment like every
 * input, but not redacted (a model name or a path in the summary is no secret). Any other `INPUT_*`
 * variable, an input action.yml does not declare included, is treated as a secret.
 */
export const DATA_INPUTS: readonly string[] = [
  "task",
  "prompt",
  "model",
  "comment",
  "working-directory",
  "max-turns",
  "max-cost",
  "vars",
  "replay",
  "resume",
  "allowed-bots",
  "allow-untrusted-checkout",
  "progress",
  "progress-interval",
  "force-rerun",
];

/** The variable the Actions runner sets for an input: `INPUT_` + the name upper-cased, spaces as `_`. */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
}

const defaultReader: InputReader = (name) => core.getInput(name);

/** Parses every input. Throws `ActionInputError` on the first invalid one; logs nothing (secrets are not masked yet). */
export function readActionInputs(getInput: InputReader = defaultReader): ActionInputs {
  const get = (name: string): string | undefined => {
    const value = getInput(name).trim();
    return value === "" ? undefined : value;
  };
  const inputs: ActionInputs = {
    task: get("task"),
    prompt: get("prompt"),
    model: get("model"),
    anthropicApiKey: get("anthropic-api-key"),
    openaiApiKey: get("openai-api-key"),
    githubToken: get("github-token"),
    comment: parseCommentMode(get("comment")),
    workingDirectory: get("working-directory"),
    maxTurns: parsePositive("max-turns", get("max-turns"), true),
    maxCostUsd: parsePositive("max-cost", get("max-cost"), false),
    vars: parseVars(getInput("vars")),
    replay: get("replay"),
    resume: get("resume"),
    allowedBots: parseAllowedBots(getInput("allowed-bots")),
    allowUntrustedCheckout: parseBoolean("allow-untrusted-checkout", get("allow-untrusted-checkout")),
    progress: parseBoolean("progress", get("progress") ?? "true"),
    progressIntervalMs: parseInterval(get("progress-interval")),
    forceRerun: parseBoolean("force-rerun", get("force-rerun")),
  };
  if (inputs.task === undefined && inputs.prompt === undefined) {
    throw new ActionInputError("task", "either 'task' (a path to task.yml) or 'prompt' is required");
  }
  return inputs;
}

function parseCommentMode(value: string | undefined): CommentMode {
  const normalized = (value ?? "true").toLowerCase();
  if (normalized === "true" || normalized === "false" || normalized === "on-change") return normalized;
  throw new ActionInputError("comment", `expected "true", "false" or "on-change", got "${value}"`);
}

function parseBoolean(name: string, value: string | undefined): boolean {
  const normalized = (value ?? "false").toLowerCase();
  if (normalized === "true" || normalized === "false") return normalized === "true";
  throw new ActionInputError(name, `expected "true" or "false", got "${value}"`);
}

function parsePositive(name: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    const kind = integer ? "a positive integer" : "a positive number";
    throw new ActionInputError(name, `expected ${kind}, got "${value}"`);
  }
  return n;
}

function parseInterval(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PROGRESS_INTERVAL_S * 1000;
  const seconds = Number(value);
  // GitHub asks for at least a second between requests that change content.
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > 3600) {
    throw new ActionInputError("progress-interval", `expected seconds between 1 and 3600, got "${value}"`);
  }
  return Math.round(seconds * 1000);
}

function parseVars(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) throw new ActionInputError("vars", `line ${index + 1}: expected KEY=VALUE, got "${line}"`);
    vars[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return vars;
}
