/**
 * The part of the runner's API (`src/run/index.ts`) the action uses, stated structurally so the
 * action's logic can be tested with a stand-in runner. `main.ts` passes the real one.
 */

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
  // biome-ignore lint/suspicious/noExplicitAny: the runner's RunEvent; the action only forwards it to the runner's own renderer.
  onEvent?: (event: any) => void;
}

export interface ActionRunner {
  runTask(options: ActionRunOptions): Promise<ActionRunResult>;
  // biome-ignore lint/suspicious/noExplicitAny: see onEvent above.
  createGithubRenderer(write: (line: string) => void): (event: any) => void;
}
