import { z } from "zod";
import type { AgentTool } from "../core/types.ts";
import { truncateHead } from "../system/truncate.ts";
import { exactBytesEdit } from "./edit-bytes.ts";
import { diffEdit, type EditDiff } from "./edit-diff.ts";
import { findMatches, lineOf, nearestCandidates } from "./edit-match.ts";
import { createLocalFileOperations } from "./local-operations.ts";
import type { FileHandle, ToolOperations } from "./operations.ts";
import { createProtectedPathCheck } from "./protected-paths.ts";
import { insideToolPath } from "./workspace-path.ts";

export interface EditToolOptions {
  /** Globs relative to the root (e.g. `.github/workflows/**`) that edit refuses. */
  protectedPaths?: string[];
  /** Where the file work happens (`lookup`, `open`). Default: the runner's process (createLocalOperations). */
  operations?: Partial<ToolOperations>;
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

/** Bytes read per call while loading the file: 4 MiB. */
const READ_CHUNK_BYTES = 4 * 1024 * 1024;

/** The whole content of an open file. */
async function readAll(handle: FileHandle): Promise<Buffer> {
  const data = Buffer.allocUnsafe(handle.info.size);
  let filled = 0;
  while (filled < data.length) {
    const n = await handle.read(data, filled, Math.min(READ_CHUNK_BYTES, data.length - filled), filled);
    if (n === 0) break;
    filled += n;
  }
  return filled === data.length ? data : data.subarray(0, filled);
}

/** What an edit did, for the tool's result. */
interface Edited {
  replacements: number;
  /** Indexes of the edits matched only after normalizing whitespace and quotes. */
  fuzzyEdits: number[];
  changes: EditDiff;
}

/** Accepts the single-edit form `{ path, oldText, newText }` that models often send. */
export function prepareEditArguments(args: unknown): unknown {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  const record = args as Record<string, unknown>;
  if (record.edits !== undefined || typeof record.oldText !== "string") return args;
  const { oldText, newText, replaceAll, ...rest } = record;
  return { ...rest, edits: [{ oldText, newText, ...(replaceAll !== undefined && { replaceAll }) }] };
}

/**
 * The edit tool: replaces exact text (each edit must match once, or use replaceAll), falling back
 * to a whitespace- and quote-tolerant match; all edits are applied or none. CRLF line endings and
 * a UTF-8 BOM are preserved. The file is read and rewritten through one descriptor, opened at the
 * real location the protected globs were checked on (no symlink followed), so what is rewritten is
 * what was read. A single exact edit of a path with no symlink on the way is done by the
 * operations in one step (`editExact`) when they offer it.
 */
export function createEditTool(
  cwd: string,
  options: EditToolOptions = {},
): AgentTool<EditToolInput, EditToolDetails> {
  const local = createLocalFileOperations(cwd);
  const lookup = options.operations?.lookup ?? local.lookup;
  const open = options.operations?.open ?? local.open;
  // Operations of the caller's own that do not offer the one step are not bypassed for it.
  const ownAccess = options.operations?.lookup !== undefined || options.operations?.open !== undefined;
  const editExact = ownAccess
    ? options.operations?.editExact
    : (options.operations?.editExact ?? local.editExact);
  const protectedBy = createProtectedPathCheck(options.protectedPaths);

  /**
   * A single exact edit of a path that no glob protects, done by the operations in one step with
   * no symlink followed (so the path is its own real location): one request to a sandbox session
   * instead of an open and then a replace (0.4-0.9 ms a call on a 2-core runner). Undefined when the
   * call is not of that kind or the step was not taken (no single exact match, a symlink on the
   * way, no such file, …): the general path then does the edit or says why not.
   */
  const editInOneStep = async (relative: string, edits: EditItem[]): Promise<Edited | undefined> => {
    const edit = edits.length === 1 ? edits[0] : undefined;
    // An empty or unchanged text is left to the general path, whose refusal says why.
    if (!editExact || !edit || edit.oldText.length === 0 || edit.oldText === edit.newText) return undefined;
    if (protectedBy({ relative, realRelative: relative }) !== undefined) return undefined;
    const done = await editExact(relative, edit, { follow: false });
    if (!done) return undefined;
    return {
      replacements: done.replacements,
      fuzzyEdits: [],
      changes: diffEdit(relative, done.before, done.after, done.lineOffset),
    };
  };

  /**
   * The general path: looked up and checked, then read and rewritten through one handle, the
   * tolerant match tried when the exact one fails.
   */
  const editThroughHandle = async (relative: string, edits: EditItem[]): Promise<Edited> => {
    // Opened while it is looked up (one round trip to a sandbox session instead of two); used
    // only once the lookup allows the edit, and only if it is the file the lookup found.
    const early = open(relative, "edit");
    early.catch(() => {});
    let info: Awaited<ReturnType<typeof lookup>>;
    let target: { relative: string; realRelative: string };
    try {
      info = await lookup(relative);
      target = { relative, realRelative: info.path };
      refuseEdit(relative, protectedBy(target), info.kind, edits);
    } catch (error) {
      void early.then(
        (handle) => handle.close(),
        () => {},
      );
      throw error;
    }
    const opened = await early.catch(() => undefined);
    // A path that changed meanwhile (a link swapped) is opened again, exactly where the lookup was.
    if (opened && opened.info.path !== info.path) await opened.close();
    const handle =
      opened?.info.path === info.path ? opened : await open(info.path, "edit", { follow: false });
    let replacements: number;
    const fuzzyEdits: number[] = [];
    let changes: EditDiff;
    try {
      const bytes = await readAll(handle);
      const fast = edits.length === 1 ? exactBytesEdit(bytes, edits[0]!) : undefined;
      if (fast) {
        await handle.replace(fast.parts);
        replacements = fast.replacements;
        changes = diffEdit(target.relative, fast.before, fast.after, fast.lineOffset);
      } else {
        const applied = applyAsText(bytes.toString("utf8"), edits, target.relative);
        await handle.replace([applied.restored]);
        replacements = applied.replacements;
        fuzzyEdits.push(...applied.fuzzyEdits);
        changes = diffEdit(target.relative, applied.original, applied.content);
      }
    } finally {
      await handle.close();
    }
    return { replacements, fuzzyEdits, changes };
  };

  return {
    name: "edit",
    label: "Edit",
    description:
      "Edit a file in the workspace by replacing text. Each edit's oldText must match exactly one place (copy it from read output without the line numbers, with enough context to be unique), or set replaceAll. Several edits are applied in order, all or none.",
    parameters: editParameters,
    prepareArguments: prepareEditArguments,
    async execute(_id, params) {
      const relative = insideToolPath(cwd, params.path);
      const { replacements, fuzzyEdits, changes } =
        (await editInOneStep(relative, params.edits)) ?? (await editThroughHandle(relative, params.edits));
      const { diff, patch, firstChangedLine } = changes;
      const fuzzyNote =
        fuzzyEdits.length > 0
          ? ` (${fuzzyEdits.length === params.edits.length ? "matched" : `${fuzzyEdits.length} matched`} after normalizing whitespace/quotes)`
          : "";
      const shown = truncateHead(diff, { maxLines: 60, maxBytes: 4096 });
      const text = `Edited ${relative}: ${replacements} replacement${replacements === 1 ? "" : "s"}${fuzzyNote}.\n${shown.content}${shown.truncated ? `\n[diff cut: ${shown.droppedLines} more lines]` : ""}`;
      return {
        content: [{ type: "text", text }],
        details: { path: relative, diff, patch, firstChangedLine, replacements, fuzzyEdits },
      };
    },
  };
}

/** Throws the reason an edit of `relative` must not be tried, if there is one. */
function refuseEdit(
  relative: string,
  pattern: string | undefined,
  kind: "file" | "dir" | "missing",
  edits: EditItem[],
): void {
  if (pattern !== undefined) {
    throw new Error(`"${relative}" is protected (matches "${pattern}"); it cannot be edited.`);
  }
  if (kind === "missing") throw new Error(`"${relative}" does not exist; use write to create it.`);
  if (kind === "dir") throw new Error(`"${relative}" is a folder; give a file path.`);
  for (const [index, edit] of edits.entries()) {
    const label = edits.length > 1 ? `Edit ${index + 1} of ${edits.length}` : "The edit";
    if (edit.oldText.length === 0) {
      throw new Error(`${label}: oldText is empty; use write to create or replace a file.`);
    }
    if (edit.oldText === edit.newText)
      throw new Error(`${label}: oldText and newText are the same; nothing to change.`);
  }
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
