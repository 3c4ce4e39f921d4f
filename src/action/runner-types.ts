/**
 * The part of the runner's API (`src/run/index.ts`) the action uses, stated structurally so the
 * action's logic can be tested with a stand-in runner. `main.ts` passes the real one.
 */
import type { RunEvent } from "../run/index.ts";

export type RunConclusion = "success" | "failure" | "limit" | "error" | "interrupted";

export interface ActionRunResult {
  conclusion: RunConclusion;
  /** DESIGN §4. */
  exitCode: number;
  reason?: string;
  /** Absolute paths. */
  outputs: { dir: string; patch: string; usage: string; summary: string; events: string };
  changedFiles: string[];
  /** USD; `null` when a price is unknown. */
  costUsd: number | null;
  turns: number;
  summaryMarkdown: string;
  /** The patch held a secret value (redacted in patch.diff): it must not be published. */
  patchHadSecret?: boolean;
}

export interface ActionRunOptions {
  taskFile?: string;
  cwd?: string;
  vars?: Record<string, string>;
  prompt?: string;
  model?: string;
  replay?: string;
  maxTurns?: number;
  maxCostUsd?: number;
  env?: NodeJS.ProcessEnv;
  /** Aborting with the reason "SIGINT" or "SIGTERM" ends the run as interrupted (130 / 143). */
  signal?: AbortSignal;
  /** Link to the Actions run, for the summary. */
  runUrl?: string;
  onEvent?: (event: RunEvent) => void;
  /** False for events from outside collaborators: `sandbox: auto` then never falls back to plain bash. */
  trusted?: boolean;
}

export interface ActionRunner {
  runTask(options: ActionRunOptions): Promise<ActionRunResult>;
  createGithubRenderer(write: (chunk: string) => void): (event: RunEvent) => void;
}
