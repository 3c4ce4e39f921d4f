/**
 * The task's name for the comment marker, read the way the spec defines it (DESIGN §3): the
 * spec's `name`, else the file's name without its extension. Inline prompts are "prompt".
 */
import path from "node:path";
import { peekTaskDocument } from "../spec/spec-file.ts";

/** Never throws: an unreadable or invalid spec falls back to the file name (the runner reports the error). */
export async function taskName(taskFile: string | undefined): Promise<string> {
  if (taskFile === undefined) return "prompt";
  const fallback = path.basename(taskFile).replace(/\.ya?ml$/i, "");
  try {
    const name = (await peekTaskDocument(taskFile))?.doc.get("name");
    return typeof name === "string" && name.trim() !== "" ? name.trim() : fallback;
  } catch {
    return fallback;
  }
}
