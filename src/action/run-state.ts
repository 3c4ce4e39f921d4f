/**
 * What the sticky comment records of the run that wrote it, in a hidden line right after the
 * task's marker: `<!-- agent-run:state status=done head=<sha> conclusion=success run=42 attempt=1 -->`.
 * The per-head-commit dedupe reads it back from the action's own comment (see dedupe.ts). Values
 * are kept to `[A-Za-z0-9._-]`, so no text can end the HTML comment or add a field.
 */

export interface RunState {
  /** "running" while progress is shown; "done" once the final summary (or error) replaced it. */
  status: "running" | "done";
  /** The PR's head commit the run was for. */
  head?: string;
  /** The run's conclusion (DESIGN §5), once done. */
  conclusion?: string;
  event?: string;
  /** GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT of the workflow run. */
  run?: string;
  attempt?: string;
}

const PREFIX = "<!-- agent-run:state ";
const FIELDS = ["status", "head", "conclusion", "event", "run", "attempt"] as const;

/** The hidden line for `state`. */
export function runStateLine(state: RunState): string {
  const parts: string[] = [];
  for (const field of FIELDS) {
    const value = state[field];
    if (value === undefined) continue;
    const safe = value.replace(/[^A-Za-z0-9._-]/g, "");
    if (safe !== "") parts.push(`${field}=${safe}`);
  }
  return `${PREFIX}${parts.join(" ")} -->`;
}

/** The state recorded in `body`, a comment that starts with `marker`; undefined when it has none. */
export function readRunState(body: string, marker: string): RunState | undefined {
  if (!body.startsWith(`${marker}\n`)) return undefined;
  const line = body.slice(marker.length + 1).split("\n", 1)[0] ?? "";
  if (!line.startsWith(PREFIX) || !line.endsWith(" -->")) return undefined;
  const values = new Map<string, string>();
  for (const part of line.slice(PREFIX.length, -4).split(" ")) {
    const eq = part.indexOf("=");
    if (eq > 0) values.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const status = values.get("status");
  if (status !== "running" && status !== "done") return undefined;
  const state: RunState = { status };
  for (const field of FIELDS) {
    const value = values.get(field);
    if (field !== "status" && value !== undefined) state[field] = value;
  }
  return state;
}
