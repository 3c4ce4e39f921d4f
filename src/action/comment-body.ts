/**
 * The PR comment's body: the run's summary.md plus a hidden marker that identifies the task, cut
 * to GitHub's size limit with a link to the run when it does not fit.
 */
import { GITHUB_COMMENT_LIMIT } from "../output/summary.ts";
import { type RunState, runStateLine } from "./run-state.ts";

/** The hidden marker that finds this task's comment again: `<!-- agent-run:task=<name> -->`. */
export function commentMarker(taskName: string): string {
  // "--" would end the HTML comment early; newlines would split the marker.
  const safe = taskName
    .replace(/--+/g, "-")
    .replace(/[\r\n>]/g, " ")
    .trim();
  return `<!-- agent-run:task=${safe} -->`;
}

export interface CommentBodyOptions {
  taskName: string;
  /** Link to the Actions run, used when the body is cut. */
  runUrl?: string;
  /** Default: `GITHUB_COMMENT_LIMIT`. */
  maxChars?: number;
  /** Recorded in a hidden line after the marker (run-state.ts). */
  state?: RunState;
}

/**
 * `marker + "\n" + summary` (the state line between them when given), never longer than `maxChars`. When cut, the cut falls on a line
 * boundary, open code fences and `<details>` blocks are closed so the rest still renders, and a
 * line links to the run.
 */
export function buildCommentBody(summaryMarkdown: string, options: CommentBodyOptions): string {
  const maxChars = options.maxChars ?? GITHUB_COMMENT_LIMIT;
  const state = options.state ? `${runStateLine(options.state)}\n` : "";
  const head = `${commentMarker(options.taskName)}\n${state}`;
  const full = head + summaryMarkdown;
  if (full.length <= maxChars) return full;

  const link = options.runUrl ? `[the workflow run](${options.runUrl})` : "the workflow run's step summary";
  const notice = `\n\n> [!NOTE]\n> This comment was cut to fit GitHub's ${maxChars.toLocaleString("en-US")}-character limit. The full summary is in ${link}.\n`;
  // Room for the closers, which are short: a fence and a few </details>.
  let budget = maxChars - head.length - notice.length - 64;
  let kept = "";
  for (;;) {
    kept = cutAtLine(summaryMarkdown, Math.max(0, budget));
    const body = head + kept + closers(kept) + notice;
    if (body.length <= maxChars || budget <= 0) return body.slice(0, maxChars);
    budget -= body.length - maxChars;
  }
}

function cutAtLine(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const slice = text.slice(0, maxChars);
  const newline = slice.lastIndexOf("\n");
  return newline > 0 ? slice.slice(0, newline) : slice;
}

/** What closes the constructs left open at the end of `text`: a code fence, `<details>` blocks. */
function closers(text: string): string {
  let out = "";
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const match = /^\s*(`{3,}|~{3,})/.exec(line);
    if (!match?.[1]) continue;
    if (fence === undefined) fence = match[1];
    else if (match[1].startsWith(fence)) fence = undefined;
  }
  if (fence !== undefined) out += `\n${fence}`;
  const outside = fence === undefined ? text : text.slice(0, text.lastIndexOf(fence));
  const open = (outside.match(/<details\b/gi) ?? []).length - (outside.match(/<\/details>/gi) ?? []).length;
  for (let i = 0; i < open; i++) out += "\n</details>";
  return out;
}

/** The notice that replaces a withheld patch in the comment. */
export const PATCH_WITHHELD_NOTICE =
  "> [!WARNING]\n> The patch held a secret value, so it is withheld from this comment (and from the `patch` output). The redacted patch is in the workflow run's outputs for review; do not apply it as is.";

/**
 * The summary without its patch block (`<details><summary>Patch …` up to its `</details>` line,
 * which no diff line can be: they all start with a prefix character), with `PATCH_WITHHELD_NOTICE`
 * in its place. A summary with no patch block gets the notice appended.
 */
export function withholdPatch(summaryMarkdown: string): string {
  const lines = summaryMarkdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith("<details><summary>Patch"));
  if (start === -1) return `${summaryMarkdown.trimEnd()}\n\n${PATCH_WITHHELD_NOTICE}\n`;
  const end = lines.findIndex((line, index) => index > start && line === "</details>");
  const after = end === -1 ? [] : lines.slice(end + 1);
  return [...lines.slice(0, start), PATCH_WITHHELD_NOTICE, ...after].join("\n");
}
