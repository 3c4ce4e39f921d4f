/**
 * `add_review_comment`, offered when the spec says `review: { inline: true }`: the model leaves a
 * comment on one line of a file (its new version, as the workspace holds it). Comments are
 * buffered, written to `review.json` in the outputs dir at once and after each one (so a crash keeps them) and
 * returned with the run's result; the action posts them as one pull-request review, the CLI leaves
 * them in review.json and names them in the summary. At most `maxComments` calls are accepted;
 * past that each call is an error result. With the pull request's diff known (`target`), a line
 * outside it is still accepted, and the model is told it will go into the review's body.
 */
import path from "node:path";
import { z } from "zod";
import { AgentRunError } from "../core/errors.ts";
import type { AgentTool } from "../core/types.ts";
import { mapStrings } from "../output/index.ts";
import { resolveToolPath } from "../tools/workspace-path.ts";
import { writeOutputFile } from "./write-output-file.ts";

export const REVIEW_TOOL = "add_review_comment";
/** The file of the outputs dir that holds the comments. */
export const REVIEW_FILE = "review.json";
/** Characters one comment may have. */
export const MAX_REVIEW_COMMENT_CHARS = 8_000;

export interface ReviewComment {
  /** Relative to the repository's root when the run knows it (`ReviewTarget`), else to the workspace; `/` separators. */
  path: string;
  /** 1-based, in the file's new version. */
  line: number;
  body: string;
  /** Whether the line is inside the pull request's diff; absent when the run has no pull request. */
  inDiff?: boolean;
}

/** What the review tool collected (`RunResult.review`, and the content of review.json). */
export interface ReviewResult {
  comments: ReviewComment[];
  maxComments: number;
  /** Calls refused because `maxComments` were already accepted. */
  refused: number;
}

/** The pull request a review is for: where paths are relative to, and which lines its diff shows. */
export interface ReviewTarget {
  /** Absolute path of the repository's root (git's top level). */
  repoRoot: string;
  /** New-side line ranges `[first, last]` inside the diff's hunks, by repository-relative path. */
  commentableLines: Record<string, Array<[number, number]>>;
}

export interface ReviewCollectorOptions {
  workspace: string;
  maxComments: number;
  /** Where review.json goes (its folder exists). */
  file: string;
  /** Applied to the file's content (the run's redactor). */
  redact: (text: string) => string;
  target?: ReviewTarget;
}

export interface ReviewCollector {
  tool: AgentTool<ReviewParams, ReviewComment>;
  result(): ReviewResult;
  /** Waits for the last write of review.json; rejects when it failed. */
  flush(): Promise<void>;
  /** One line for the summary's notes; undefined when nothing was collected. */
  note(): string | undefined;
}

const parameters = z.strictObject({
  path: z.string().min(1).describe("The file, relative to the workspace"),
  line: z.int().positive().max(10_000_000).describe("The line in the file's current version (1-based)"),
  body: z.string().min(1).describe("The comment: one point, in Markdown"),
});

type ReviewParams = z.infer<typeof parameters>;

export function createReviewCollector(options: ReviewCollectorOptions): ReviewCollector {
  const comments: ReviewComment[] = [];
  let refused = 0;
  let writing: Promise<void> = Promise.resolve();
  let failure: unknown;
  const result = (): ReviewResult => ({
    comments: comments.map((comment) => ({ ...comment })),
    maxComments: options.maxComments,
    refused,
  });
  const save = () => {
    // Each string first, before JSON escapes it (a token after a line break would look like the
    // middle of a word), then the file as written.
    const text = options.redact(`${JSON.stringify(mapStrings(result(), options.redact), null, 2)}\n`);
    writing = writing.then(() =>
      writeOutputFile(options.file, text).catch((error: unknown) => {
        failure ??= error;
      }),
    );
  };

  const tool: AgentTool<ReviewParams, ReviewComment> = {
    name: REVIEW_TOOL,
    label: "Review comment",
    description:
      `Leave a review comment on one line of a file (the line number in the file as it is now). ` +
      `Comments are posted together as one pull-request review when the run ends: a line inside the pull request's diff gets the comment on the line, any other line's comment goes into the review's text. ` +
      `At most ${options.maxComments} comments per run; keep each to one point, and put an overall verdict in your final message.`,
    parameters,
    async execute(_id, params) {
      if (comments.length >= options.maxComments) {
        refused++;
        save();
        throw new AgentRunError(
          "tool",
          "review_limit",
          `The run's limit of ${options.maxComments} review comments is reached (review.max_comments); this comment was not recorded. Put anything else in your final message.`,
        );
      }
      const file = commentPath(options, params.path);
      const body = params.body.trim();
      if (body === "") throw new AgentRunError("tool", "review_empty", "The comment's body is empty.");
      if (body.length > MAX_REVIEW_COMMENT_CHARS) {
        throw new AgentRunError(
          "tool",
          "review_too_long",
          `The comment has ${body.length} characters; at most ${MAX_REVIEW_COMMENT_CHARS} are allowed. Shorten it.`,
        );
      }
      const comment: ReviewComment = { path: file, line: params.line, body };
      if (options.target) comment.inDiff = inRanges(options.target.commentableLines[file], params.line);
      comments.push(comment);
      save();
      const where =
        comment.inDiff === false
          ? ` Line ${params.line} of ${file} is not in the pull request's diff, so this comment goes into the review's text, not on the line.`
          : "";
      return {
        content: [
          {
            type: "text",
            text: `Recorded review comment ${comments.length} of at most ${options.maxComments} on ${file}:${params.line}.${where} It is posted with the others when the run ends.`,
          },
        ],
        details: comment,
      };
    },
  };

  // A review.json of an earlier run in the same folder starts over.
  save();
  return {
    tool,
    result,
    async flush() {
      await writing;
      if (failure !== undefined) throw failure;
    },
    note() {
      if (comments.length === 0 && refused === 0) return undefined;
      const listed = comments.slice(0, 10).map((c) => `${c.path}:${c.line}`);
      const more = comments.length > listed.length ? `, and ${comments.length - listed.length} more` : "";
      const over =
        refused > 0 ? `; ${refused} more refused past review.max_comments (${options.maxComments})` : "";
      return `The review has ${comments.length} comment(s) in ${REVIEW_FILE}${listed.length ? `: ${listed.join(", ")}${more}` : ""}${over}.`;
    },
  };
}

/** The comment's path as the review names it; throws a tool error for a path that names no file of the workspace. */
function commentPath(options: ReviewCollectorOptions, input: string): string {
  const resolved = resolveToolPath(options.workspace, input.trim());
  if (!resolved.inside) {
    throw new AgentRunError(
      "tool",
      "review_path",
      `Path "${input}" is outside the workspace; name a file inside it.`,
    );
  }
  if (resolved.relative === ".") {
    throw new AgentRunError("tool", "review_path", "Name a file, not the workspace itself.");
  }
  if (!options.target) return resolved.relative;
  const rel = path.relative(options.target.repoRoot, resolved.absolute);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return resolved.relative;
  return rel.split(path.sep).join("/");
}

function inRanges(ranges: Array<[number, number]> | undefined, line: number): boolean {
  return (ranges ?? []).some(([first, last]) => line >= first && line <= last);
}

/** The tool's parameters, for checking replayed calls before a run (replay-tools.ts). */
export { parameters as reviewCommentParameters };
