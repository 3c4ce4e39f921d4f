import picomatch from "picomatch";
import { z } from "zod";
import type { AgentTool } from "../core/types.ts";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  type TruncationResult,
  truncateHead,
} from "../system/truncate.ts";
import { createLocalFileOperations } from "./local-operations.ts";
import type { ToolOperations } from "./operations.ts";
import { createLineMatcher, DEFAULT_REGEX_TIMEOUT_MS } from "./regex-worker.ts";
import { walkFiles } from "./walk-files.ts";
import { insideToolPath } from "./workspace-path.ts";

export interface GrepToolOptions {
  /** Default: 2000. */
  maxLines?: number;
  /** Default: 51200. */
  maxBytes?: number;
  /** Default number of matches returned. Default: 100. */
  defaultLimit?: number;
  /** Files larger than this are skipped. Default: 20 MiB. */
  maxFileBytes?: number;
  /** Characters after which a matching line is cut. Default: 500. */
  maxLineChars?: number;
  /**
   * How long a regular expression may take on one file, in milliseconds, before the search stops
   * with an error (it runs in a worker thread, so a runaway regex never blocks the process).
   * Default: 5000.
   */
  regexTimeoutMs?: number;
  /** Where the file work happens (`lookup`, `list`, `readFiles`). Default: the runner's process. */
  operations?: Partial<ToolOperations>;
}

export const grepParameters = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe("Regular expression (JavaScript syntax), or plain text with literal: true"),
  path: z
    .string()
    .optional()
    .describe("File or folder to search, relative to the workspace root. Default: the root"),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts" or "src/**/*.test.ts"'),
  literal: z.boolean().optional().describe("Treat the pattern as plain text. Default: false"),
  ignoreCase: z.boolean().optional().describe("Default: false"),
  context: z
    .number()
    .int()
    .min(0)
    .max(20)
    .optional()
    .describe("Lines of context around each match. Default: 0"),
  limit: z.number().int().min(1).optional().describe("Maximum matches to return. Default: 100"),
});
export type GrepToolInput = z.infer<typeof grepParameters>;

export interface GrepToolDetails {
  matches: number;
  filesSearched: number;
  filesWithMatches: number;
  /** True when the search stopped at `limit` matches. */
  limitReached: boolean;
  /** Files skipped because they were binary or larger than `maxFileBytes`. */
  filesSkipped: number;
  truncation?: TruncationResult;
}

/** Files asked for per `readFiles` call, and the bytes one call may bring: 256 and 8 MiB. */
const READ_BATCH = 256;
const READ_BUDGET_BYTES = 8 * 1024 * 1024;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The grep tool: searches file contents under a folder, honouring .gitignore; bounded matches. */
export function createGrepTool(
  cwd: string,
  options: GrepToolOptions = {},
): AgentTool<GrepToolInput, GrepToolDetails> {
  const local = createLocalFileOperations(cwd);
  const operations = {
    lookup: options.operations?.lookup ?? local.lookup,
    list: options.operations?.list ?? local.list,
    readFiles: options.operations?.readFiles ?? local.readFiles,
  };
  const maxFileBytes = options.maxFileBytes ?? 20 * 1024 * 1024;
  const maxLineChars = options.maxLineChars ?? 500;
  const regexTimeoutMs = options.regexTimeoutMs ?? DEFAULT_REGEX_TIMEOUT_MS;
  return {
    name: "grep",
    label: "Grep",
    description: `Search file contents in the workspace with a regular expression (or literal text), honouring .gitignore. Prints path:line: text per match; at most ${options.defaultLimit ?? 100} matches unless limit is set.`,
    parameters: grepParameters,
    async execute(_id, params, signal) {
      let regex: RegExp;
      try {
        regex = new RegExp(
          params.literal ? escapeRegex(params.pattern) : params.pattern,
          params.ignoreCase ? "i" : "",
        );
      } catch (error) {
        throw new Error(
          `Invalid regular expression "${params.pattern}": ${(error as Error).message}. Use literal: true for plain text.`,
        );
      }
      // A literal pattern cannot backtrack: it is matched here; any other runs in a worker thread.
      const matcher = params.literal
        ? undefined
        : createLineMatcher(regex.source, regex.flags, { timeoutMs: regexTimeoutMs, signal });
      // A worker that has to start does so while the files are listed and read.
      matcher?.warm();
      try {
        const relative = insideToolPath(cwd, params.path ?? ".");
        const info = await operations.lookup(relative);
        if (info.kind === "missing") throw new Error(`Path "${relative}" does not exist in the workspace.`);
        const target = { relative };
        const limit = params.limit ?? options.defaultLimit ?? 100;
        const context = params.context ?? 0;
        const glob = params.glob
          ? picomatch(params.glob, { dot: true, basename: !params.glob.includes("/") })
          : undefined;
        const out: string[] = [];
        const details: GrepToolDetails = {
          matches: 0,
          filesSearched: 0,
          filesWithMatches: 0,
          limitReached: false,
          filesSkipped: 0,
        };

        /** Prints the matches `hits` (line indices, in order) of one file. */
        const report = (path: string, text: string, hits: readonly number[]) => {
          details.filesSearched++;
          if (hits.length === 0) return;
          const lines = text.split("\n");
          let printedUpTo = -1;
          let matched = false;
          for (const i of hits) {
            if (details.limitReached) break;
            matched = true;
            details.matches++;
            const from = Math.max(printedUpTo + 1, i - context);
            if (context > 0 && printedUpTo >= 0 && from > printedUpTo + 1) out.push("--");
            for (let j = from; j <= Math.min(lines.length - 1, i + context); j++) {
              const line = lines[j]!.replace(/\r$/, "");
              const cut = line.length > maxLineChars ? `${line.slice(0, maxLineChars)}... [line cut]` : line;
              out.push(`${path}${j === i ? ":" : "-"}${j + 1}${j === i ? ":" : "-"} ${cut}`);
              printedUpTo = j;
            }
            if (details.matches >= limit) details.limitReached = true;
          }
          if (matched) details.filesWithMatches++;
        };
        /** Line indices matching in each of `texts`, at most `left` in all (a literal pattern is matched here). */
        const matchAll = async (texts: string[], paths: string[], left: number) => {
          if (!matcher) {
            return texts.map((text) => {
              if (left <= 0 || !regex.test(text)) return [];
              const hits: number[] = [];
              const lines = text.split("\n");
              for (let i = 0; i < lines.length && hits.length < left; i++)
                if (regex.test(lines[i]!)) hits.push(i);
              left -= hits.length;
              return hits;
            });
          }
          const hits = await matcher.match(texts, left);
          if (hits === "aborted") throw new Error("grep was aborted");
          if ("timeout" in hits) {
            throw new Error(
              `The regular expression /${params.pattern}/ took too long on ${paths[hits.timeout]} (over ${regexTimeoutMs} ms) and was stopped. Simplify it (nested quantifiers such as (a+)+ backtrack without end), or use literal: true for plain text.`,
            );
          }
          return hits;
        };

        let files: string[];
        if (info.kind === "file") files = [info.path];
        else {
          const prefix = info.path === "." ? "" : `${info.path}/`;
          files = (await walkFiles(operations, info.path, { signal }))
            .filter((entry) => entry.kind === "file" && (!glob || glob(entry.path.slice(prefix.length))))
            .map((entry) => entry.path);
        }
        /**
         * The files from `from` on that one `readFiles` call brings, in order (a file's text, or
         * "skipped"), the texts and their paths alone, and where the next batch starts.
         */
        const readBatch = async (from: number) => {
          const batch = files.slice(from, from + READ_BATCH);
          const contents = await operations.readFiles(batch, {
            maxFileBytes,
            skipBinary: true,
            budgetBytes: READ_BUDGET_BYTES,
            follow: false,
          });
          const order: (number | "skipped")[] = [];
          const paths: string[] = [];
          const texts: string[] = [];
          let next = from;
          for (const [i, content] of contents.entries()) {
            if (content.kind === "deferred") break;
            next++;
            if (content.kind === "skipped") order.push("skipped");
            else if (content.kind === "content") {
              order.push(texts.length);
              paths.push(batch[i]!);
              texts.push(content.data.toString("utf8"));
            }
          }
          return { order, paths, texts, next };
        };
        // The next batch is read while the worker matches this one.
        let reading = files.length > 0 ? readBatch(0) : undefined;
        while (reading && !details.limitReached) {
          if (signal.aborted) throw new Error("grep was aborted");
          const { order, paths, texts, next } = await reading;
          const matching = matchAll(texts, paths, limit - details.matches);
          reading = next < files.length ? readBatch(next) : undefined;
          // A failed read ahead is reported where it would have been without it, if the search gets there.
          reading?.catch(() => {});
          const hits = await matching;
          for (const i of order) {
            if (details.limitReached) break;
            if (i === "skipped") details.filesSkipped++;
            else report(paths[i]!, texts[i]!, hits[i] ?? []);
          }
        }

        if (details.matches === 0) {
          return {
            content: [
              {
                type: "text",
                text: `No matches for /${params.pattern}/ in ${target.relative === "." ? "the workspace" : target.relative}.`,
              },
            ],
            details,
          };
        }
        const truncation = truncateHead(out.join("\n"), {
          maxLines: options.maxLines ?? DEFAULT_MAX_LINES,
          maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
        });
        let text = truncation.content;
        const notes: string[] = [];
        if (details.limitReached)
          notes.push(`Stopped at ${limit} matches; narrow the pattern, path or glob, or raise limit.`);
        if (truncation.truncated) {
          details.truncation = truncation;
          notes.push(`Output cut to ${truncation.outputLines} of ${truncation.totalLines} lines.`);
        }
        if (notes.length > 0) text += `\n\n[${notes.join(" ")}]`;
        return { content: [{ type: "text", text }], details };
      } finally {
        await matcher?.close();
      }
    },
  };
}
