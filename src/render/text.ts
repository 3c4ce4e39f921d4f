import { formatCost, formatCount, formatDuration, modelLabel } from "../core/format.ts";
import type { ToolResultMessage } from "../core/types.ts";
import type { CompactRunEvent } from "../run/compact-event.ts";
import { shortArgs } from "../run/short-args.ts";
import { escapeWorkflowCommandText } from "../run/workflow-commands.ts";

export type TextRenderMode = "tty" | "plain" | "github";

export interface TextRendererOptions {
  /** Receives whole chunks of output (lines end with "\n"; in tty mode also "\r" rewrites). */
  write: (chunk: string) => void;
  mode: TextRenderMode;
  /** ANSI colours. Default: on for tty unless NO_COLOR is set. */
  color?: boolean;
  /** Passed through to redact every line before it is written. */
  redact?: (text: string) => string;
  /**
   * Width the "why" lines under a failed call or hook are cut to (the terminal's columns).
   * Default: 200, for logs that have no width.
   */
  columns?: number;
}

/** Width of "why" lines when the output has no width of its own (a file, a CI log). */
export const DEFAULT_COLUMNS = 200;
const WHY_INDENT = "      ";

const ANSI = {
  dim: "\x1b[2m",
  red: "\x1b[31m",
  green: "\x1b[32m",
  yellow: "\x1b[33m",
  bold: "\x1b[1m",
  reset: "\x1b[0m",
};

/** CSI (colours, cursor moves) and OSC (titles, links) sequences, whole. */
const ESCAPE_SEQUENCE = new RegExp(
  [
    "\\u001b\\[[0-?]*[ -/]*[@-~]",
    "\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)?",
    "\\u009b[0-?]*[ -/]*[@-~]",
  ].join("|"),
  "g",
);

/**
 * The first non-blank line of a text as it was written (trailing blanks and controls aside), cut
 * to `width` characters with an ellipsis.
 */
export function firstLine(text: string, width: number): string {
  const line = text.split(/\r\n|\r|\n/).find((candidate) => candidate.trim() !== "") ?? "";
  // Terminal controls (colour codes a tool printed, a bell) would act on the reader's terminal.
  const shown = [
    ...line
      .replace(ESCAPE_SEQUENCE, "")
      .replace(/[^\P{Cc}\t]/gu, "")
      .trimEnd(),
  ];
  const room = Math.max(20, width);
  return shown.length <= room ? shown.join("") : `${shown.slice(0, room - 1).join("")}…`;
}

/** The text the model got back from a call, as one string. */
function resultText(result: ToolResultMessage | undefined): string {
  if (!result) return "";
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

/** What a `notice` line says: the model was told something by the agent itself. */
const NOTICE_TITLES = {
  wind_down: "near a limit: the model is told to finish or wrap up",
  repeated_failure: "the model repeats a failing call",
  cut_off: "the reply was cut off by the output-token limit: the model is asked to continue",
} as const;

/**
 * Renders run events as human-readable lines: one per turn and per tool call, with durations and
 * marks for blocked calls and errors. "tty" shows running tools live, "plain" prints finished
 * lines only, "github" wraps each turn in `::group::`. Every line starts with our own text, so
 * nothing a model or tool produced can open a line (and be taken as a workflow command).
 */
export function createTextRenderer(options: TextRendererOptions): (event: CompactRunEvent) => void {
  const color = options.color ?? (options.mode === "tty" && !process.env.NO_COLOR);
  const paint = (code: keyof typeof ANSI, text: string) =>
    color ? `${ANSI[code]}${text}${ANSI.reset}` : text;
  const redact = options.redact ?? ((text: string) => text);
  // Whatever a line holds (tool arguments, model or hook text), it stays one line, and in GitHub
  // mode it can never be read as a workflow command.
  const tty = options.mode === "tty";
  // In a TTY the last line shows what is running; every finished line is printed above it.
  const running = new Map<string, string>();
  let statusShown = false;
  const drawStatus = () => {
    if (!tty || running.size === 0) return;
    const [latest] = [...running.values()].slice(-1);
    const more = running.size > 1 ? ` (+${running.size - 1} running)` : "";
    options.write(
      redact(`  … ${latest}${more}`)
        .replace(/[\r\n]+/g, " ")
        .slice(0, 200),
    );
    statusShown = true;
  };
  const out = (line: string) => {
    if (statusShown) {
      options.write("\r\x1b[2K");
      statusShown = false;
    }
    const text = redact(line);
    options.write(
      `${options.mode === "github" ? escapeWorkflowCommandText(text) : text.replace(/[\r\n]+/g, " ")}\n`,
    );
    drawStatus();
  };
  const whyWidth = (options.columns ?? DEFAULT_COLUMNS) - WHY_INDENT.length;
  const argsById = new Map<string, string>();
  let groupOpen = false;

  const closeGroup = () => {
    if (groupOpen) options.write("::endgroup::\n");
    groupOpen = false;
  };

  return (event) => {
    switch (event.type) {
      case "run_start":
        out(
          `${paint("bold", "agent-run")} ${event.task} · ${event.model} · ${event.tools.join(", ") || "no tools"}`,
        );
        break;
      case "turn_start": {
        const title = `turn ${event.turn} · ${modelLabel(event.model)}`;
        if (options.mode === "github") {
          closeGroup();
          options.write(`::group::${escapeWorkflowCommandText(redact(title))}\n`);
          groupOpen = true;
        } else out(paint("dim", `▸ ${title}`));
        break;
      }
      case "tool_execution_start": {
        const args = shortArgs(event.toolName, event.args);
        argsById.set(event.toolCallId, args);
        if (tty) {
          running.set(event.toolCallId, `${event.toolName} ${args}`);
          if (statusShown) options.write("\r\x1b[2K");
          drawStatus();
        }
        break;
      }
      case "tool_execution_end": {
        const args = argsById.get(event.toolCallId) ?? "";
        argsById.delete(event.toolCallId);
        const mark = event.blocked
          ? paint("yellow", "⊘")
          : event.isError
            ? paint("red", "✗")
            : paint("green", "✓");
        let suffix = "";
        if (event.blocked) suffix = paint("yellow", " blocked");
        else if (event.isError) suffix = paint("red", " error");
        running.delete(event.toolCallId);
        out(
          `  ${mark} ${event.toolName} ${args} ${paint("dim", `(${formatDuration(event.durationMs)})`)}${suffix}`,
        );
        // Why, as the model read it: the result's first line (a block's result is its reason).
        if (event.blocked || event.isError) {
          const why = resultText(event.result) || (event.blockReason ?? "");
          if (why.trim() !== "") out(`${WHY_INDENT}${paint("dim", firstLine(why, whyWidth))}`);
        }
        break;
      }
      case "message_update":
        if (event.update === "retry") {
          const { attempt = 0, delayMs = 0, reason = "" } = event;
          out(
            paint(
              "yellow",
              `  ↻ ${shortArgs("", reason, 120)}: retry ${attempt} in ${formatDuration(delayMs)}`,
            ),
          );
        }
        break;
      case "hook_decision":
        if (event.hook === "before_stop") {
          if (event.decision === "continue")
            out(`  ${paint("yellow", "↺")} before_stop failed: the model continues`);
        } else if (event.hook === "prepare_next_turn")
          out(paint("dim", `  ⇄ next turn: ${nextTurnText(event)}`));
        break;
      case "hook_end": {
        // Every command hook that ran: what it was, how long it took and what it meant.
        const failed = event.outcome === "fail" || event.outcome === "error" || event.outcome === "block";
        const mark = failed ? paint("red", "✗") : paint("green", "✓");
        const outcome = event.timedOut ? "timed out" : event.outcome;
        out(
          `  ${mark} ${event.hook} ${shortArgs("", event.command)} ${paint("dim", `(${formatDuration(event.durationMs)})`)} ${failed ? paint("red", outcome) : paint("dim", outcome)}`,
        );
        // A hook error is explained by the hook_failed line that follows; a block, by the call's.
        if (event.outcome === "fail" && event.reason && event.reason.trim() !== "")
          out(`${WHY_INDENT}${paint("dim", firstLine(event.reason, whyWidth))}`);
        break;
      }
      case "hook_failed":
        // A failing before_stop check already has its ✗ line and ends the run with its reason.
        if (event.hook === "before_stop") break;
        out(`  ${paint("red", "!")} ${event.hook} hook failed: ${shortArgs("", event.message, 120)}`);
        break;
      case "limit":
        out(`  ${paint("yellow", "■")} limit: ${event.message}`);
        break;
      case "resume": {
        const patch = { applied: "its patch applied", held: "its changes already here", empty: "no changes" }[
          event.patch
        ];
        out(
          `${paint("bold", "resuming")} run ${event.runId} (${event.turns} turns) from ${event.from}: ${patch}, ${event.messages} messages restored`,
        );
        break;
      }
      case "notice":
        out(`  ${paint("yellow", "»")} ${NOTICE_TITLES[event.notice]}`);
        break;
      case "compaction": {
        const what = [
          event.resultsPruned > 0 && `${event.resultsPruned} old results pruned`,
          event.turnsFolded > 0 && `${event.turnsFolded} turns summarised`,
          event.summaryError !== undefined && "summary failed, a list of the calls instead",
          event.latestCut && "the latest results cut to fit",
        ].filter(Boolean);
        const why = event.reason === "overflow" ? "the provider said it was too long" : "near the window";
        out(
          `  ${paint("yellow", "⇣")} context compacted (${why}): ~${formatCount(event.tokensBefore)} → ~${formatCount(event.tokensAfter)} of ${formatCount(event.contextWindow)} tokens${what.length > 0 ? `; ${what.join(", ")}` : ""} ${paint("dim", `(${formatDuration(event.durationMs)})`)}`,
        );
        break;
      }
      case "warning":
        out(`${paint("yellow", "warning:")} ${shortArgs("", event.message, 300)}`);
        break;
      case "run_end": {
        closeGroup();
        const cost = event.costUsd === null ? "cost unknown" : formatCost(event.costUsd);
        const status =
          event.conclusion === "success" ? paint("green", event.conclusion) : paint("red", event.conclusion);
        out(
          `${status} · ${counted(event.turns, "turn")} · ${formatDuration(event.durationMs)} · ${cost} · ${counted(event.filesChanged, "file")} changed${event.reason ? ` · ${shortArgs("", event.reason, 200)}` : ""}`,
        );
        break;
      }
      default:
        break;
    }
  };
}

/** What a prepare_next_turn decision changed, then why: `model a:b, thinking low (turn 3, $0.01 spent)`. */
function nextTurnText(event: { model?: string; thinking?: string; reason?: string }): string {
  const changed = [event.model && `model ${event.model}`, event.thinking && `thinking ${event.thinking}`]
    .filter(Boolean)
    .join(", ");
  if (!changed) return event.reason ?? "";
  return event.reason ? `${changed} (${event.reason})` : changed;
}

/** "1 turn", "2 turns". */
function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
