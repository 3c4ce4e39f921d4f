import { AgentRunError } from "../core/errors.ts";
import type { AgentEvent } from "../core/events.ts";
import type { HookEvent } from "../hooks/index.ts";
import type { Conclusion, RunRecord } from "../output/types.ts";
import type { CompactRunEvent } from "./compact-event.ts";
import type { CompactionEvent } from "./compaction/compactor.ts";
import type { RunPullRequest } from "./pull-request.ts";
import type { ReviewResult } from "./review-tool.ts";

/** Events of the run itself, around the agent's. */
export type RunLifecycleEvent =
  | {
      type: "run_start";
      task: string;
      model: string;
      workspace: string;
      outputDir: string;
      tools: string[];
      execution: "parallel" | "sequential";
      startedAt: string;
    }
  | { type: "warning"; message: string }
  /** A resumed run took over an earlier one's work (`patch`: how its patch got into this run's). */
  | {
      type: "resume";
      from: string;
      runId: string;
      patch: "applied" | "held" | "empty";
      /** Messages of the earlier conversation restored. */
      messages: number;
      /** Turns the earlier run (and those it resumed) took. */
      turns: number;
    }
  | {
      type: "run_end";
      conclusion: Conclusion;
      exitCode: number;
      reason?: string;
      turns: number;
      durationMs: number;
      costUsd: number | null;
      filesChanged: number;
    };

/** Every event a run emits: the agent's, the hooks' and the run's own. Renderers consume these. */
export type RunEvent = AgentEvent | HookEvent | RunLifecycleEvent | CompactionEvent;

export interface RunTaskOptions {
  /** Path to the task spec. Without it, `prompt` and `model` describe the whole task. */
  taskFile?: string;
  /** The workspace root; overrides the spec's `workdir`. Relative to the process cwd. */
  cwd?: string;
  /** Where the outputs go; overrides the spec's `outputs.dir`. Relative to the process cwd. */
  outDir?: string;
  vars?: Record<string, string>;
  prompt?: string;
  /** "provider:id"; overrides the spec's model. */
  model?: string;
  /** Play a recorded or scripted session instead of calling a model. */
  replay?: string;
  /** Record the live session to this file in the replay format. */
  record?: string;
  maxTurns?: number;
  maxCostUsd?: number;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /**
   * Further values to redact from every output and every request to the model, beyond the
   * credential variables of `env`, the spec's `api_key_env` values and git credentials: values
   * kept out of the run's environment (the action passes its inputs' and the Actions runner's).
   */
  secretValues?: string[];
  /** Aborting ends the run as `interrupted`; pass a reason of "SIGINT" or "SIGTERM" to get 130 / 143. */
  signal?: AbortSignal;
  /**
   * Aborting says the process must end soon (a second stop signal; SIGKILL is near): the finish
   * phase writes the best outputs it has at once, the patch of the last turn-end checkpoint marked
   * partial, then completes them if it is given the time. Without it, the same happens
   * `URGENT_AFTER_MS` (5 s) after `signal` aborts, and on any SIGINT or SIGTERM the process gets
   * while the outputs are written.
   */
  hurry?: AbortSignal;
  /**
   * Every event as written to events.jsonl (streaming deltas without the partial message), redacted.
   * May be async (an async function is a `void` one here): not awaited, and one that throws or
   * rejects changes nothing.
   */
  onEvent?: (event: CompactRunEvent) => void;
  /** Link to the run (e.g. the Actions run page), used in the summary. */
  runUrl?: string;
  /**
   * Resume the run whose outputs dir this is (DESIGN §7): its patch is applied first when the
   * workspace does not hold it yet, its transcript restored, and the run goes on with the same
   * task; `prompt`, if given, is the follow-up message. Relative to the process cwd.
   */
  resume?: string;
  /**
   * Whether the run was triggered by someone trusted. With `sandbox: auto`, an untrusted run
   * refuses to start when bubblewrap is unavailable instead of running commands unsandboxed.
   * Default: true (the CLI); the action passes false for events from outside collaborators.
   */
  trusted?: boolean;
  /**
   * The pull request the run is about (the action, on pull-request events): its commits and
   * diff become `{{ vars.pr_base_sha }}`, `{{ vars.pr_head_sha }}` and `{{ vars.pr_diff_file }}`
   * (the diff copied into the outputs dir), and review comments are checked against its diff.
   */
  pullRequest?: RunPullRequest;
}

export interface RunResult {
  conclusion: Conclusion;
  /** DESIGN §4: 0 success, 1 failure, 3 limit, 4 error, 130/143 interrupted. */
  exitCode: number;
  reason?: string;
  /**
   * Absolute paths of the output files and their folder (`transcript`: what `resume` reads);
   * `result` (result.json) only when the task has an `output_schema` and the run ended with a
   * valid result.
   */
  outputs: {
    dir: string;
    patch: string;
    usage: string;
    summary: string;
    events: string;
    transcript?: string;
    result?: string;
  };
  changedFiles: string[];
  costUsd: number | null;
  turns: number;
  summaryMarkdown: string;
  record: RunRecord;
  /**
   * True when the patch held a secret value that was redacted out of `patch.diff`: the file no
   * longer applies as the agent meant it, and it must not be published or applied.
   */
  patchHadSecret: boolean;
  /** The structured result (`output_schema`), redacted, when the run succeeded with one: what result.json holds. */
  result?: unknown;
  /** Where the model's tools acted: in bubblewrap, commands unsandboxed, or no command at all (see `setupSandbox`). */
  sandbox: "sandboxed" | "unsandboxed" | "none";
  /** The review comments the model left (spec `review.inline`), redacted; absent when the tool was not offered. */
  review?: ReviewResult;
  /**
   * What patch.diff holds: every change of the run ("complete"); the changes up to a turn-end
   * checkpoint, because the process had to end before the full patch was computed ("partial"); or
   * no patch could be computed ("failed": exit code 4, the reason in `reason` and the summary).
   */
  patchStatus: "complete" | "partial" | "failed";
  /**
   * One line when patch.diff, usage.json or summary.md could not be written (a full disk, a folder
   * that went away): `exitCode` is then 4. `summaryMarkdown` still holds the summary.
   */
  outputsError?: string;
}

/** Exit codes of DESIGN §4 (defined with the error family in core/errors.ts). */
export { EXIT } from "../core/errors.ts";

/** Why a run could not start. */
export type RunSetupErrorCode =
  | "workspace_missing"
  | "workspace_refused"
  | "sandbox_unavailable"
  | "outputs_dir_invalid"
  | "record_path_invalid"
  /** `resume`: the folder holds no run to resume, or its files are unreadable. */
  | "resume_invalid"
  /** `resume`: another model, and the transcript holds reasoning only the earlier one can read. */
  | "resume_model_mismatch"
  /** `resume`: the earlier patch neither applies to the workspace nor is held by it. */
  | "resume_patch_conflict"
  /** `resume`: the earlier patch held a secret and was redacted, so it cannot be applied. */
  | "resume_patch_secret"
  | "output_schema_invalid";

/**
 * A run that cannot start (the workspace does not exist, a required sandbox cannot start): a usage
 * error, exit code 2, nothing written.
 */
export class RunSetupError extends AgentRunError {
  declare readonly code: RunSetupErrorCode;

  constructor(code: RunSetupErrorCode, message: string, options: { cause?: unknown } = {}) {
    super("usage", code, message, { shortMessage: message, cause: options.cause });
    this.name = "RunSetupError";
  }
}
