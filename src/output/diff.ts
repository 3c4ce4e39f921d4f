/**
 * The end of the workspace snapshot: what changed between the start snapshot and now, as a
 * `git apply`-able binary patch plus a per-file list and a diffstat.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { gitOrThrow } from "./git.ts";
import { type WorkspaceSnapshot, writeTree } from "./snapshot.ts";
import type { ChangedFile, WorkspaceDiff } from "./types.ts";

/** Widest `+`/`-` bar in the diffstat, in characters. */
export const DIFFSTAT_BAR_WIDTH = 40;

/**
 * Diffs the workspace now against `snapshot`: new, deleted, renamed (`-M`), mode-changed and
 * binary files (`--binary`), restricted to the workspace and minus the snapshot's exclusions.
 * The patch is streamed to a file by git, so its size is not bounded by a pipe buffer. Calling
 * it again later diffs against the same start. Throws with git's message on failure.
 */
export async function diffWorkspace(snapshot: WorkspaceSnapshot, _root?: string): Promise<WorkspaceDiff> {
  const end = await writeTree(snapshot);
  if (end === snapshot.tree) return { patch: "", files: [], diffstat: "" };
  const options = { cwd: snapshot.workTree, env: snapshot.env };
  const common = ["-M", "--no-color", "--no-ext-diff", "--no-textconv"];
  if (snapshot.prefix !== "") common.push(`--relative=${snapshot.prefix}`);
  const patchFile = path.join(snapshot.tempDir, `patch-${end}.diff`);
  const [, raw, numstat] = await Promise.all([
    gitOrThrow(["diff", "--binary", ...common, `--output=${patchFile}`, snapshot.tree, end], options),
    gitOrThrow(["diff", "--raw", "-z", ...common, snapshot.tree, end], options),
    gitOrThrow(["diff", "--numstat", "-z", ...common, snapshot.tree, end], options),
  ]);
  const bytes = await fs.readFile(patchFile);
  await fs.rm(patchFile, { force: true });
  const files = parseChangedFiles(raw, numstat);
  return { ...decodePatch(bytes), files, diffstat: formatDiffstat(files) };
}

/** UTF-8 when the patch is valid UTF-8; otherwise latin1, which maps every byte to one char and back. */
function decodePatch(bytes: Buffer): Pick<WorkspaceDiff, "patch" | "patchEncoding"> {
  try {
    return { patch: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { patch: bytes.toString("latin1"), patchEncoding: "latin1" };
  }
}

interface Numstat {
  additions: number;
  deletions: number;
  binary: boolean;
}

/** Joins `git diff --raw -z` and `git diff --numstat -z` (same order) into ChangedFile records. */
export function parseChangedFiles(raw: string, numstat: string): ChangedFile[] {
  const stats = parseNumstat(numstat);
  const files: ChangedFile[] = [];
  const tokens = raw.split("\0");
  for (let i = 0; i < tokens.length; i++) {
    const meta = tokens[i];
    if (!meta?.startsWith(":")) continue;
    const [oldMode = "", newMode = "", , , statusField = ""] = meta.slice(1).split(" ");
    const letter = statusField.charAt(0);
    const twoPaths = letter === "R" || letter === "C";
    const oldPath = tokens[i + 1] ?? "";
    const newPath = twoPaths ? (tokens[i + 2] ?? "") : oldPath;
    i += twoPaths ? 2 : 1;
    const stat = stats[files.length] ?? { additions: 0, deletions: 0, binary: false };
    const file: ChangedFile = { path: newPath, status: statusOf(letter), ...stat };
    if (twoPaths) file.oldPath = oldPath;
    if (oldMode !== newMode && oldMode !== "000000" && newMode !== "000000") {
      file.oldMode = oldMode;
      file.newMode = newMode;
    }
    files.push(file);
  }
  return files;
}

function parseNumstat(numstat: string): Numstat[] {
  const stats: Numstat[] = [];
  const tokens = numstat.split("\0");
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (!token) continue;
    const [added = "", deleted = "", name = ""] = token.split("\t");
    // A rename leaves the name empty and puts the old and new paths in the next two tokens.
    if (name === "") i += 2;
    const binary = added === "-" && deleted === "-";
    stats.push({ additions: binary ? 0 : Number(added), deletions: binary ? 0 : Number(deleted), binary });
  }
  return stats;
}

function statusOf(letter: string): ChangedFile["status"] {
  if (letter === "A" || letter === "C") return "added";
  if (letter === "D") return "deleted";
  if (letter === "R") return "renamed";
  return "modified";
}

/** A `git diff --stat`-like text: one line per file and a totals line; `""` for no files. */
export function formatDiffstat(files: ChangedFile[], barWidth = DIFFSTAT_BAR_WIDTH): string {
  if (files.length === 0) return "";
  const names = files.map((file) => (file.oldPath ? `${file.oldPath} => ${file.path}` : file.path));
  const nameWidth = Math.max(...names.map((name) => name.length));
  const maxChange = Math.max(...files.map((file) => file.additions + file.deletions));
  const countWidth = Math.max(...files.map((file) => String(file.additions + file.deletions).length));
  const scale = maxChange > barWidth ? barWidth / maxChange : 1;
  const lines = files.map((file, index) => {
    const name = (names[index] ?? "").padEnd(nameWidth);
    if (file.binary) return ` ${name} | Bin`;
    const total = file.additions + file.deletions;
    const plus = scaled(file.additions, scale);
    const minus = scaled(file.deletions, scale);
    const bar = `${"+".repeat(plus)}${"-".repeat(minus)}`;
    return ` ${name} | ${String(total).padStart(countWidth)}${bar ? ` ${bar}` : ""}`;
  });
  const additions = files.reduce((sum, file) => sum + file.additions, 0);
  const deletions = files.reduce((sum, file) => sum + file.deletions, 0);
  let totals = ` ${files.length} file${files.length === 1 ? "" : "s"} changed`;
  totals += `, ${additions} insertion${additions === 1 ? "" : "s"}(+)`;
  totals += `, ${deletions} deletion${deletions === 1 ? "" : "s"}(-)`;
  return `${[...lines, totals].join("\n")}\n`;
}

function scaled(count: number, scale: number): number {
  if (count === 0) return 0;
  return Math.max(1, Math.round(count * scale));
}
