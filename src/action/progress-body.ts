/**
 * The sticky comment's body while the run goes on, and the one it is left with when the run's
 * process ended without a summary (crashed, killed): the marker, the run state (run-state.ts), a
 * headline, the turn, the cost so far and the latest tool calls. Tool arguments are the model's
 * text: they go in code spans, and the whole body through `neutralizeComment`.
 */
import { formatCost, formatDuration } from "../core/format.ts";
import { codeSpan, escapeInline } from "../output/markdown.ts";
import { buildCommentBody } from "./comment-body.ts";
import { neutralizeComment } from "./comment-hygiene.ts";
import type { ProgressSnapshot, ProgressToolCall } from "./run-protocol.ts";
import type { RunState } from "./run-state.ts";

export interface ProgressBodyOptions {
  taskName: string;
  runUrl: string | undefined;
  /** Since the step started, in milliseconds. */
  elapsedMs: number;
  state: RunState;
  /** Hosts links may point to besides github.com (the run's server). */
  hosts: readonly string[];
}

const MARKS: Record<ProgressToolCall["status"], string> = {
  running: "\u23f3",
  done: "\u2714\ufe0f",
  error: "\u274c",
  blocked: "\u26d4",
};

/** The body while the run goes on; `snapshot` undefined before the run's first event. */
export function progressBody(snapshot: ProgressSnapshot | undefined, options: ProgressBodyOptions): string {
  const lines = [`### \u23f3 Running: ${escapeInline(options.taskName)}`, ""];
  const facts = [
    snapshot && snapshot.turn > 0 ? `turn ${snapshot.turn}` : "starting",
    ...(snapshot ? [`${snapshot.toolCalls} tool call${snapshot.toolCalls === 1 ? "" : "s"}`] : []),
    ...(snapshot ? [`${formatCost(snapshot.costUsd)} so far`] : []),
    formatDuration(options.elapsedMs),
  ];
  lines.push(facts.join(" \u00b7 "));
  if (snapshot && snapshot.recent.length > 0) {
    lines.push("", "Latest tool calls:", "");
    for (const call of snapshot.recent) {
      const took = call.durationMs === undefined ? "" : ` (${formatDuration(call.durationMs)})`;
      lines.push(
        `- ${MARKS[call.status]} ${codeSpan(call.name)}${call.args ? ` ${codeSpan(call.args)}` : ""}${took}`,
      );
    }
  }
  lines.push(
    "",
    footer(
      options.runUrl,
      "This comment shows the run as it goes; the summary replaces it when the run ends.",
    ),
  );
  return body(lines.join("\n"), options);
}

/** The body left when the run ended without a summary: what is known of how it ended. */
export function endedBody(
  ending: { exitCode: number; message: string },
  options: ProgressBodyOptions,
): string {
  const lines = [
    `### \u{1f6d1} Error: ${escapeInline(options.taskName)}`,
    "",
    `The run ended without a summary (exit code ${ending.exitCode}): ${escapeInline(ending.message)}`,
    "",
    footer(options.runUrl, "The workflow run's log says more."),
  ];
  return body(lines.join("\n"), options);
}

function footer(runUrl: string | undefined, text: string): string {
  return `_${text}_${runUrl ? ` [The workflow run](${runUrl}).` : ""}`;
}

function body(markdown: string, options: ProgressBodyOptions): string {
  return buildCommentBody(neutralizeComment(markdown, options.hosts), {
    taskName: options.taskName,
    ...(options.runUrl !== undefined && { runUrl: options.runUrl }),
    state: options.state,
  });
}
