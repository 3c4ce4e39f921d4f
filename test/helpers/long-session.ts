/**
 * A long scripted session for the mock LLM, shared by the compaction tests and the bench: turn i
 * reads file i (each about 20 KB of its own words), every `editEvery`-th turn also edits an earlier
 * file, and after the last turn the model says it is done. Summary requests (no tools offered)
 * are answered with a summary and do not advance the script.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { MockReply, MockScript, RecordedRequest } from "../mock-llm/server.ts";

export interface LongSession {
  turns: number;
  /** Every this many turns, the turn also edits a file read five turns earlier. */
  editEvery: number;
  /** Bytes of each file. Default: 20 KB. */
  fileBytes?: number;
}

const WORDS =
  "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega vector matrix tensor buffer stream parser token module export import const return value index array object string number".split(
    " ",
  );

export function fileName(i: number): string {
  return `docs/f${String(i).padStart(3, "0")}.txt`;
}

/** The marker an edit turn replaces in a file, and what it becomes. */
export function marker(i: number): { before: string; after: string } {
  return { before: `MARKER-${i}-OPEN`, after: `MARKER-${i}-DONE` };
}

/** The last line of file i: seen whole in a request only if the file's result is there unpruned and uncut. */
export function lastLine(i: number): string {
  return `end of file number ${i}`;
}

/** File i: about `bytes` of words that differ from file to file, its marker first, its last line last. */
export function fileText(i: number, bytes = 20 * 1024): string {
  const lines = [`${marker(i).before} first line of file ${i}`];
  let size = lines[0]?.length ?? 0;
  let seed = i * 7919 + 17;
  while (size < bytes - 40) {
    const words: string[] = [];
    for (let w = 0; w < 10; w++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      words.push(WORDS[seed % WORDS.length] ?? "x");
    }
    const line = `${words.join(" ")} ${seed % 1000}`;
    lines.push(line);
    size += line.length + 1;
  }
  lines.push(lastLine(i));
  return `${lines.join("\n")}\n`;
}

/** Writes the session's files into `dir`. */
export async function writeSessionFiles(dir: string, session: LongSession): Promise<void> {
  await mkdir(path.join(dir, "docs"), { recursive: true });
  for (let i = 0; i < session.turns; i++) {
    await writeFile(path.join(dir, fileName(i)), fileText(i, session.fileBytes));
  }
}

/** The files the session edits (by index). */
export function editedFiles(session: LongSession): number[] {
  const edited: number[] = [];
  for (let turn = 0; turn < session.turns; turn++) if (isEditTurn(session, turn)) edited.push(turn - 5);
  return edited;
}

function isEditTurn(session: LongSession, turn: number): boolean {
  return turn >= 5 && (turn + 1) % session.editEvery === 0;
}

/** A summary request offers no tools (the run's requests always offer some). */
export function isSummaryRequest(request: RecordedRequest): boolean {
  const tools = request.body.tools;
  return !Array.isArray(tools) || tools.length === 0;
}

export const SUMMARY_TEXT =
  "## Goal\nRead every file and edit the scripted markers.\n## Done\nRead the files so far.\n## Files changed\nSee the list above.\n## Left to do\nThe remaining files.\n## Open errors\nNone.";

/**
 * The script: turn t reads file t (and on edit turns also edits file t-5), then "Done.". Summary
 * requests get `SUMMARY_TEXT`. `requests` collects the run's own requests (summaries left out).
 */
export function longSessionScript(session: LongSession, requests: RecordedRequest[] = []): MockScript {
  let turn = 0;
  return (_index, request) => {
    if (isSummaryRequest(request)) return { text: SUMMARY_TEXT, usage: { output: 120 } };
    requests.push(request);
    const t = turn++;
    if (t >= session.turns)
      return { text: "Done: every file read, every marker edited.", usage: { output: 20 } };
    const calls: MockReply["toolCalls"] = [{ name: "read", arguments: { path: fileName(t) } }];
    if (isEditTurn(session, t)) {
      const { before, after } = marker(t - 5);
      calls.push({
        name: "edit",
        arguments: { path: fileName(t - 5), edits: [{ oldText: before, newText: after }] },
      });
    }
    return { text: `Turn ${t}: reading ${fileName(t)}.`, toolCalls: calls, usage: { output: 40 } };
  };
}
