import type { Usage } from "../core/types.ts";

/** How a run ended. Written verbatim as `usage.json`'s `conclusion` (DESIGN §5). */
export type Conclusion = "success" | "failure" | "limit" | "error" | "interrupted";

/** Per-tool counters. `durationMs` is the summed wall time of the tool's calls, in milliseconds. */
export interface ToolStats {
  calls: number;
  errors: number;
  blocked: number;
  durationMs: number;
}

/** A tool call refused by a `before_tool_call` hook (or a tool's own allow/deny rule). */
export interface BlockedCall {
  tool: string;
  reason: string;
  turn: number;
  /** A short form of the arguments, for the summary. */
  args?: string;
}

/** A hook that failed to run or failed its check (e.g. `before_stop` still failing). */
export interface HookFailure {
  hook: string;
  command?: string;
  message: string;
  /** The end of the command's output, shown collapsed in the summary. */
  output?: string;
}

/** One command hook rule (a hook point and its index in the spec's list) and the runs it made. */
export interface HookRuns {
  /** The hook point as in the spec: `after_tool_call`, `before_stop`… */
  hook: string;
  /** The rule's index in its list. */
  rule: number;
  command: string;
  runs: number;
  /** Runs by outcome (`pass`, `fail`, `output`, `none`, `allow`, `block`, `error`…). */
  outcomes: Record<string, number>;
  /** The last run's outcome: for `before_stop`, whether the check passed in the end. */
  lastOutcome: string;
  /** Summed wall time of the runs, in milliseconds. */
  durationMs: number;
}

/**
 * The record of one run: the single input of every output writer. One plain, JSON-serialisable
 * object; the runner fills it in as the run goes and hands it over at the end, whatever ended it.
 */
export interface RunRecord {
  taskName: string;
  /** First line of the prompt. */
  description: string;
  conclusion: Conclusion;
  /** One line: why the run ended that way (limit hit, before_stop failing, provider error...). */
  reason?: string;
  /** `"provider:id"` of the last model used. */
  model: string;
  /** Every model used, in order of first use. */
  models: string[];
  turns: number;
  /** Wall time of the whole run, in milliseconds. */
  durationMs: number;
  /** Core usage totals over every model call (retries included) plus tool-reported usage. `costUnknown` → `cost_usd: null`. */
  usage: Usage;
  /** Keyed by tool name. */
  toolCalls: Record<string, ToolStats>;
  blocked: BlockedCall[];
  hookFailures: HookFailure[];
  /** Command hooks that ran, in order of their first run. Absent: none ran (or an older record). */
  hookRuns?: HookRuns[];
  lastAssistantText: string;
  /**
   * Things a reader of the summary must know about how the run was done, one line each: commands
   * ran without a sandbox, the patch held a secret. Rendered as warnings near the top.
   */
  notes?: string[];
  /** Link to the full run (e.g. the Actions run), used in the summary when the patch is cut. */
  runUrl?: string;
  /** This run's id (usage.json `run_id`). */
  runId?: string;
  /** Times the conversation was compacted to fit the model's context window. */
  compactions?: number;
  /**
   * The run this one resumed, with what it (and the runs it resumed) took: usage.json and the
   * summary count both. The other fields of the record are this run's own.
   */
  resumedFrom?: ResumedRun;
  /** The structured result (`output_schema`) of a run that succeeded with one, as in result.json. */
  result?: unknown;
}

/** An earlier run a run resumed, as its transcript.json told. */
export interface ResumedRun {
  runId: string;
  conclusion: Conclusion;
  turns: number;
  durationMs: number;
  usage: Usage;
  toolCalls: Record<string, ToolStats>;
}

/** One file the run changed, as seen between the start snapshot and the end state. */
export interface ChangedFile {
  /** Path relative to the workspace root, `/`-separated. For renames, the new path. */
  path: string;
  status: "added" | "modified" | "deleted" | "renamed";
  /** For renames: the old path. */
  oldPath?: string;
  /** Added lines (0 for binary files). */
  additions: number;
  /** Deleted lines (0 for binary files). */
  deletions: number;
  binary: boolean;
  /** Octal file mode before/after when it changed (e.g. "100644" → "100755"). */
  oldMode?: string;
  newMode?: string;
}

/** What `diffWorkspace` returns: the patch, the changed files and a `git diff --stat`-like text. */
export interface WorkspaceDiff {
  /** `git diff --binary` output; `""` when nothing changed. Always ends with a newline when non-empty. */
  patch: string;
  /**
   * How to write `patch` back to bytes. Absent means UTF-8; "latin1" when the diff held bytes that
   * are not valid UTF-8 (a text file in another encoding), so writing it as latin1 restores them exactly.
   */
  patchEncoding?: "latin1";
  /**
   * Size of the whole patch in bytes when `patch` holds only its beginning (the run streams
   * patch.diff and keeps in memory only what the summary can show). Absent: `patch` is all of it.
   */
  patchSize?: number;
  files: ChangedFile[];
  diffstat: string;
}
