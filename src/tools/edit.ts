import { open, readFile } from "node:fs/promises";
import { z } from "zod";
import type { AgentTool } from "../core/types.ts";
import { truncateHead } from "../system/truncate.ts";
import { exactBytesEdit } from "./edit-bytes.ts";
import { diffEdit, type EditDiff } from "./edit-diff.ts";
import { findMatches, lineOf, nearestCandidates } from "./edit-match.ts";
import { createProtectedPathCheck } from "./protected-paths.ts";
import { createWorkspace } from "./workspace-path.ts";

/** File access of the edit tool, swappable in tests. */
export interface EditOperations {
  readFile(path: string): Promise<Buffer>;
  /** Writes the parts in order as the whole new file (strings as UTF-8). */
  writeFile(path: string, parts: (string | Uint8Array)[]): Promise<void>;
}

export interface EditToolOptions {
  /** Globs relative to the root (e.g. `.github/workflows/**`) that edit refuses. */
  protectedPaths?: string[];
  operations?: Partial<EditOperations>;
}

const editItem = z.strictObject({
  oldText: z
    .string()
    .describe("Exact text to replace, including whitespace; must occur once unless replaceAll"),
  newText: z.string().describe("Text to put in its place"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence. Default: false"),
});

export const editParameters = z.strictObject({
  path: z.string().min(1).describe("File to edit, relative to the workspace root"),
  edits: z.array(editItem).min(1).describe("Replacements, applied in order; all or none are written"),
});
export type EditToolInput = z.infer<typeof editParameters>;
export type EditItem = z.infer<typeof editItem>;

export interface EditToolDetails {
  /** Root-relative path edited. */
  path: string;
  /** Compact numbered diff of the changed lines. */
  diff: string;
  /** Unified diff of the file (LF line endings, no BOM). */
  patch: string;
  /** 1-based line of the first change; undefined if the file is unchanged. */
  firstChangedLine: number | undefined;
  /** Replacements made (more than the edits when replaceAll matched several times). */
  replacements: number;
  /** Indexes (0-based) of the edits that matched only after whitespace/quote normalization. */
  fuzzyEdits: number[];
}

const WRITE_SLICE_CHARS = 1024 * 1024;

const defaultOperations: EditOperations = {
  readFile: (path) => readFile(path),
  writeFile: async (path, parts) => {
    const handle = await open(path, "w");
    try {
      for (const part of parts) {
        if (typeof part !== "string") {
          await handle.write(part);
          continue;
        }
        // Slice by slice: encoding a big string in one go would hold a second full copy as a Buffer.
        let start = 0;
        while (start < part.length) {
          let end = Math.min(part.length, start + WRITE_SLICE_CHARS);
          // Never split a surrogate pair between two slices.
          if (end < part.length && (part.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
          await handle.write(part.slice(start, end), null, "utf8");
          start = end;
        }
      }
    } finally {
      await handle.close();
    }
  },
};

/** Accepts the single-edit form `{ path, oldText, newText }` that models often send. */
function prepareEditArguments(args: unknown): unknown {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  const record = args as Record<string, unknown>;
  if (record.edits !== undefined || typeof record.oldText !== "string") return args;
  const { oldText, newText, replaceAll, ...rest } = record;
  return { ...rest, edits: [{ oldText, newText, ...(replaceAll !== undefined && { replaceAll }) }] };
}

/**
 * The edit tool: replaces exact text (each edit must match once, or use replaceAll), falling back
 * to a whitespace- and quote-tolerant match; all edits are applied or none. CRLF line endings and
 * a UTF-8 BOM are preserved.
 */
export function createEditTool(
  cwd: string,
  options: EditToolOptions = {},
): AgentTool<EditToolInput, EditToolDetails> {
  const workspace = createWorkspace(cwd);
  const operations: EditOperations = { ...defaultOperations, ...options.operations };
  const protectedBy = createProtectedPathCheck(options.protectedPaths);

  return {
    name: "edit",
    label: "Edit",
    description:
      "Edit a file in the workspace by replacing text. Each edit's oldText must match exactly one place (copy it from read output without the line numbers, with enough context to be unique), or set replaceAll. Several edits are applied in order, all or none.",
    parameters: editParameters,
    prepareArguments: prepareEditArguments,
    async execute(_id, params) {
      const target = await workspace.resolve(params.path);
      const pattern = protectedBy(target);
      if (pattern !== undefined) {
        throw new Error(`"${target.relative}" is protected (matches "${pattern}"); it cannot be edited.`);
      }
      if (!target.stats) throw new Error(`"${target.relative}" does not exist; use write to create it.`);
      if (target.stats?.isDirectory()) throw new Error(`"${target.relative}" is a folder; give a file path.`);
      for (const [index, edit] of params.edits.entries()) {
        const label = params.edits.length > 1 ? `Edit ${index + 1} of ${params.edits.length}` : "The edit";
        if (edit.oldText.length === 0) {
          throw new Error(`${label}: oldText is empty; use write to create or replace a file.`);
        }
        if (edit.oldText === edit.newText)
          throw new Error(`${label}: oldText and newText are the same; nothing to change.`);
      }
      const bytes = await operations.readFile(target.real);
      const fast = params.edits.length === 1 ? exactBytesEdit(bytes, params.edits[0]!) : undefined;
      let replacements: number;
      const fuzzyEdits: number[] = [];
      let changes: EditDiff;
      if (fast) {
        await operations.writeFile(target.real, fast.parts);
        replacements = fast.replacements;
        changes = diffEdit(target.relative, fast.before, fast.after, fast.lineOffset);
      } else {
        const applied = applyAsText(bytes.toString("utf8"), params.edits, target.relative);
        await operations.writeFile(target.real, [applied.restored]);
        replacements = applied.replacements;
        fuzzyEdits.push(...applied.fuzzyEdits);
        changes = diffEdit(target.relative, applied.original, applied.content);
      }
      const { diff, patch, firstChangedLine } = changes;
      const fuzzyNote =
        fuzzyEdits.length > 0
          ? ` (${fuzzyEdits.length === params.edits.length ? "matched" : `${fuzzyEdits.length} matched`} after normalizing whitespace/quotes)`
          : "";
      const shown = truncateHead(diff, { maxLines: 60, maxBytes: 4096 });
      const text = `Edited ${target.relative}: ${replacements} replacement${replacements === 1 ? "" : "s"}${fuzzyNote}.\n${shown.content}${shown.truncated ? `\n[diff cut: ${shown.droppedLines} more lines]` : ""}`;
      return {
        content: [{ type: "text", text }],
        details: { path: target.relative, diff, patch, firstChangedLine, replacements, fuzzyEdits },
      };
    },
  };
}

/**
 * The string path: edits applied in order to the decoded text (line breaks as LF when the file is
 * all CRLF, BOM set aside), each matched exactly or else tolerantly. Throws on the first edit that
 * does not match exactly once; nothing is written then.
 */
function applyAsText(raw: string, edits: EditItem[], path: string) {
  const bom = raw.startsWith("\uFEFF");
  const withoutBom = bom ? raw.slice(1) : raw;
  const crlf = usesCrlf(withoutBom);
  const original = crlf ? withoutBom.replace(/\r\n/g, "\n") : withoutBom;
  let content = original;
  let replacements = 0;
  const fuzzyEdits: number[] = [];
  for (const [index, edit] of edits.entries()) {
    const label = edits.length > 1 ? `Edit ${index + 1} of ${edits.length}` : "The edit";
    const oldText = crlf ? edit.oldText.replace(/\r\n/g, "\n") : edit.oldText;
    const newText = crlf ? edit.newText.replace(/\r\n/g, "\n") : edit.newText;
    const outcome = findMatches(content, oldText, { replaceAll: edit.replaceAll ?? false });
    if (!outcome.ok) throw new Error(matchError(label, path, content, oldText, outcome));
    const pieces: string[] = [];
    let last = 0;
    for (const range of outcome.ranges) {
      pieces.push(content.slice(last, range.start), newText);
      last = range.end;
    }
    pieces.push(content.slice(last));
    content = pieces.join("");
    replacements += outcome.ranges.length;
    if (outcome.fuzzy) fuzzyEdits.push(index);
  }
  const restored = (bom ? "\uFEFF" : "") + (crlf ? content.replace(/\n/g, "\r\n") : content);
  return { original, content, restored, replacements, fuzzyEdits };
}

/** True when every line break is CRLF (mixed files are edited as they are). */
function usesCrlf(text: string): boolean {
  let lineFeeds = 0;
  let crlf = 0;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) {
    lineFeeds++;
    if (index > 0 && text.charCodeAt(index - 1) === 13) crlf++;
  }
  return crlf > 0 && crlf === lineFeeds;
}

function matchError(
  label: string,
  path: string,
  content: string,
  oldText: string,
  outcome:
    | { ok: false; problem: "none" }
    | { ok: false; problem: "many"; ranges: { start: number }[]; fuzzy: boolean },
): string {
  if (outcome.problem === "many") {
    const lines = outcome.ranges.slice(0, 10).map((range) => lineOf(content, range.start));
    const more = outcome.ranges.length > 10 ? ", ..." : "";
    return `${label}: oldText matches ${outcome.ranges.length} places in ${path}${outcome.fuzzy ? " (after normalizing whitespace/quotes)" : ""}, at lines ${lines.join(", ")}${more}. Include more surrounding lines to make it unique, or set replaceAll: true. Nothing was changed.`;
  }
  const candidates = nearestCandidates(content, oldText);
  const nearest =
    candidates.length > 0
      ? `\nNearest candidates:\n${candidates.map((candidate) => `--- line ${candidate.line}\n${candidate.text}`).join("\n")}`
      : "";
  return `${label}: oldText was not found in ${path}, not even ignoring whitespace and quote style. Read the file again and copy the exact text. Nothing was changed.${nearest}`;
}
