/**
 * `summary.md`, the PR comment body: conclusion, task, the structured result, files changed, the patch (collapsed, cut to
 * fit), usage, tool calls, blocked calls, hook failures and the model's last message. Every piece of
 * text that came from the model, a file or a hook goes through ./markdown.ts, so it cannot break the
 * layout, ping anyone or inject HTML.
 */
import { formatCost, formatCount, formatDuration } from "../core/format.ts";
import { codeSpan, escapeInline, fencedBlock, inlineWithCode, quoteMarkdown } from "./markdown.ts";
import { resultSection } from "./result-section.ts";
import type { Conclusion, HookRuns, RunRecord, WorkspaceDiff } from "./types.ts";
import { costUsd, runTotals } from "./usage-json.ts";

/** GitHub's limit on a comment body, in characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;
/** Characters of the last assistant message kept in the summary. */
export const MAX_LAST_MESSAGE_CHARS = 8_000;
/** Blocked calls and hook failures listed before "and N more". */
export const MAX_LISTED_ITEMS = 30;
/** Files listed in the diffstat before "and N more files". */
export const MAX_DIFFSTAT_FILES = 100;
/** Below this many characters of room, the patch is left out of the summary instead of cut. */
const MIN_PATCH_ROOM = 500;

export interface RenderSummaryOptions {
  /** Upper bound on the summary's length (UTF-16 units, which never undercounts GitHub's). Default: 65,536. */
  maxChars?: number;
  /** Why the diff is missing, when it could not be computed. */
  diffError?: string;
  /** Name of the patch file mentioned when the patch is cut. Default: "patch.diff". */
  patchFileName?: string;
}

const HEADLINES: Record<Conclusion, string> = {
  success: "\u2705 Success",
  failure: "\u274c Failure",
  limit: "\u26a0\ufe0f Stopped by a limit",
  error: "\u{1f6d1} Error",
  interrupted: "\u23f9\ufe0f Interrupted",
};

/**
 * Renders the summary. `diff` is null when the diff failed (say why in `diffError`). The result
 * never exceeds `maxChars`: the patch is cut first (at a line, with a note), then the last message.
 */
export function renderSummary(
  record: RunRecord,
  diff: WorkspaceDiff | null,
  options: RenderSummaryOptions = {},
): string {
  const maxChars = options.maxChars ?? GITHUB_COMMENT_LIMIT;
  const head = [
    headSection(record),
    notesSection(record),
    resultSection(record.result),
    changesSection(diff, options.diffError),
  ]
    .filter((section) => section !== "")
    .join("\n\n");
  const tail = [
    usageSection(record),
    toolsSection(record),
    blockedSection(record),
    hookRunsSection(record.hookRuns ?? []),
    hooksSection(record),
    lastMessageSection(record),
  ]
    .filter((section) => section !== "")
    .join("\n\n");
  const fixed = head.length + tail.length + 4;
  let patch = "";
  if (diff && diff.patch !== "") {
    patch = patchSection(diff, maxChars - fixed, record.runUrl, options.patchFileName ?? "patch.diff");
  }
  const summary = `${[head, patch, tail].filter((part) => part !== "").join("\n\n")}\n`;
  return summary.length <= maxChars ? summary : hardCut(summary, maxChars);
}

function headSection(record: RunRecord): string {
  const lines = [`### ${HEADLINES[record.conclusion]}: ${escapeInline(record.taskName)}`];
  if (record.description.trim() !== "") lines.push("", `> ${inlineWithCode(record.description.trim())}`);
  if (record.reason) lines.push("", `**Why:** ${inlineWithCode(record.reason)}`);
  return lines.join("\n");
}

function notesSection(record: RunRecord): string {
  const notes = record.notes ?? [];
  if (notes.length === 0) return "";
  const items = notes
    .slice(0, MAX_LISTED_ITEMS)
    .map((note) => `- \u26a0\ufe0f ${inlineWithCode(truncate(note, 500))}`);
  return `#### Notes\n\n${[...items, ...more(notes.length)].join("\n")}`;
}

function changesSection(diff: WorkspaceDiff | null, diffError: string | undefined): string {
  if (!diff) {
    const why = diffError ? `: ${inlineWithCode(diffError)}` : "";
    return `#### Files changed\n\nThe patch could not be computed${why}. \`patch.diff\` is empty.`;
  }
  if (diff.files.length === 0) return "#### Files changed\n\nNo files changed.";
  const lines = diff.diffstat.trimEnd().split("\n");
  const totals = lines.pop() ?? "";
  const listed = lines.slice(0, MAX_DIFFSTAT_FILES).map((line) => truncate(line, 200));
  const files = Math.max(lines.length, diff.files.length);
  if (files > MAX_DIFFSTAT_FILES)
    listed.push(` \u2026 and ${formatCount(files - MAX_DIFFSTAT_FILES)} more files`);
  return `#### Files changed (${diff.files.length})\n\n${fencedBlock([...listed, totals].join("\n"), "text")}`;
}

function patchSection(
  diff: WorkspaceDiff,
  room: number,
  runUrl: string | undefined,
  fileName: string,
): string {
  const additions = diff.files.reduce((sum, file) => sum + file.additions, 0);
  const deletions = diff.files.reduce((sum, file) => sum + file.deletions, 0);
  const open = `<details><summary>Patch (+${additions} \u2212${deletions})</summary>\n\n`;
  const close = "\n</details>";
  const where = runUrl ? `\`${fileName}\` of [the run](${encodeURI(runUrl)})` : `\`${fileName}\``;
  const size = diff.patchSize ?? diff.patch.length;
  const whole = `${open}${fencedBlock(diff.patch, "diff")}${close}`;
  if (diff.patchSize === undefined && whole.length <= room) return whole;
  const note = (shown: number) =>
    `\n\n*Patch cut here: ${formatCount(shown)} of ${formatCount(size)} characters shown. The full patch is in ${where}.*`;
  const wrapper = open.length + close.length + note(size).length + 64;
  const budget = room - wrapper - (longestBacktickFence(diff.patch) + 1) * 2;
  if (budget < MIN_PATCH_ROOM) {
    return `*The patch (${formatCount(size)} characters) is too long to show here; it is in ${where}.*`;
  }
  const cut = diff.patch.lastIndexOf("\n", budget);
  const shown = diff.patch.slice(0, cut > 0 ? cut + 1 : budget);
  return `${open}${fencedBlock(shown, "diff")}${note(shown.length)}${close}`;
}

function longestBacktickFence(text: string): number {
  let longest = 2;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest + 1;
}

function usageSection(record: RunRecord): string {
  const totals = runTotals(record);
  const { usage } = totals;
  const rows = [
    "| Turns | Input | Output | Cache read | Cache write | Total tokens | Cost | Duration | Model |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    `| ${[
      formatCount(totals.turns),
      formatCount(usage.input),
      formatCount(usage.output),
      formatCount(usage.cacheRead),
      formatCount(usage.cacheWrite),
      formatCount(usage.totalTokens),
      formatCost(costUsd(record)),
      formatDuration(totals.durationMs),
      escapeInline(record.model),
    ].join(" | ")} |`,
  ];
  if (record.models.length > 1)
    rows.push("", `Models used, in order: ${record.models.map(escapeInline).join(" \u2192 ")}`);
  const earlier = record.resumedFrom;
  if (earlier) {
    rows.push(
      "",
      `Resumed run ${codeSpan(earlier.runId)} (${formatCount(earlier.turns)} turns, ${formatCost(earlier.usage.costUnknown ? null : earlier.usage.cost.total)}, it ended: ${earlier.conclusion}); the figures above count both runs, ${formatCount(record.turns)} turns of them this one's.`,
    );
  }
  if (record.compactions !== undefined && record.compactions > 0) {
    rows.push(
      "",
      `The conversation was compacted ${record.compactions === 1 ? "once" : `${record.compactions} times`} to fit the model's context window.`,
    );
  }
  return `#### Usage\n\n${rows.join("\n")}`;
}

function toolsSection(record: RunRecord): string {
  // By code point, not localeCompare: its first call sets up ICU's collator, ~10 ms at the end of
  // every run that called a tool.
  const entries = Object.entries(record.toolCalls).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return "#### Tool calls\n\nNone.";
  const rows = entries.map(
    ([name, stats]) =>
      `| ${escapeInline(name)} | ${stats.calls} | ${stats.errors} | ${stats.blocked} | ${formatDuration(stats.durationMs)} |`,
  );
  return [
    "#### Tool calls",
    "",
    "| Tool | Calls | Errors | Blocked | Time |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
}

function blockedSection(record: RunRecord): string {
  if (record.blocked.length === 0) return "";
  const items = record.blocked.slice(0, MAX_LISTED_ITEMS).map((call) => {
    const args = call.args ? ` ${codeSpan(truncate(call.args, 200))}` : "";
    return `- **${escapeInline(call.tool)}**${args} (turn ${call.turn}): ${inlineWithCode(truncate(call.reason, 500))}`;
  });
  return `#### Blocked calls (${record.blocked.length})\n\n${[...items, ...more(record.blocked.length)].join("\n")}`;
}

function hooksSection(record: RunRecord): string {
  if (record.hookFailures.length === 0) return "";
  const items = record.hookFailures.slice(0, MAX_LISTED_ITEMS).map((failure) => {
    const command = failure.command ? ` ${codeSpan(truncate(failure.command, 200))}` : "";
    const line = `- **${escapeInline(failure.hook)}**${command}: ${inlineWithCode(truncate(failure.message, 500))}`;
    if (!failure.output) return line;
    const output = fencedBlock(failure.output, "text")
      .split("\n")
      .map((l) => `  ${l}`)
      .join("\n");
    return `${line}\n\n  <details><summary>Output (end)</summary>\n\n${output}\n\n  </details>\n`;
  });
  return `#### Hook failures (${record.hookFailures.length})\n\n${[...items, ...more(record.hookFailures.length)].join("\n")}`;
}

/** Every command hook rule that ran: how often, with what outcomes, for how long. */
function hookRunsSection(runs: HookRuns[]): string {
  if (runs.length === 0) return "";
  const rows = runs.slice(0, MAX_LISTED_ITEMS).map((entry) => {
    const outcomes = Object.entries(entry.outcomes)
      .map(([outcome, count]) => `${outcome} ${count}`)
      .join(", ");
    return `| ${escapeInline(entry.hook)} | ${escapeInline(truncate(entry.command, 120))} | ${entry.runs} | ${escapeInline(outcomes)} | ${escapeInline(entry.lastOutcome)} | ${formatDuration(entry.durationMs)} |`;
  });
  if (runs.length > MAX_LISTED_ITEMS)
    rows.push(`| \u2026 and ${runs.length - MAX_LISTED_ITEMS} more | | | | | |`);
  return [
    "#### Hooks run",
    "",
    "| Hook | Command (first run) | Runs | Outcomes | Last | Time |",
    "| --- | --- | ---: | --- | --- | ---: |",
    ...rows,
  ].join("\n");
}

function more(count: number): string[] {
  return count > MAX_LISTED_ITEMS ? [`- \u2026 and ${count - MAX_LISTED_ITEMS} more`] : [];
}

function lastMessageSection(record: RunRecord): string {
  const text = record.lastAssistantText.trim();
  if (text === "") return "";
  const cut = text.length > MAX_LAST_MESSAGE_CHARS;
  const body = quoteMarkdown(cut ? text.slice(0, MAX_LAST_MESSAGE_CHARS) : text);
  return `#### Last assistant message\n\n${body}${cut ? "\n\n*(cut)*" : ""}`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}

/**
 * Last resort when even the fixed sections overflow: keep the start, cut at a line, close a fence
 * or a `<details>` left open by the cut, and say so.
 */
function hardCut(summary: string, maxChars: number): string {
  const note = "\n\n*(summary cut to fit)*\n";
  const reserve = note.length + 64;
  const cut = summary.lastIndexOf("\n", maxChars - reserve);
  const kept = summary.slice(0, Math.max(0, cut));
  let fence: string | undefined;
  let details = false;
  for (const line of kept.split("\n")) {
    const marker = /^(?:> ?)?(`{3,})/.exec(line)?.[1];
    if (fence === undefined && marker) fence = marker;
    else if (
      fence !== undefined &&
      marker &&
      marker.length >= fence.length &&
      line.trim().replace(/^> ?/, "") === marker
    )
      fence = undefined;
    else if (fence === undefined && line.startsWith("<details>")) details = true;
    else if (fence === undefined && line === "</details>") details = false;
  }
  const closing = `${fence === undefined ? "" : `\n${fence}`}${details ? "\n</details>" : ""}`;
  return `${kept}${closing}${note}`;
}
