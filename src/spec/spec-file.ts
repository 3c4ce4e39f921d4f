import type { Document, LineCounter } from "yaml";
import { readInputFile } from "../system/read-input-file.ts";
import { parseYaml } from "../system/yaml-input.ts";

/** Task files larger than this are refused unread: a spec is a few kilobytes. */
export const MAX_SPEC_BYTES = 10 * 1024 * 1024;

/**
 * This module stays light (yaml, no zod): the action's first process reads fields with it before
 * it loads the runner.
 *
 * A task file's YAML document, for callers that only peek at a field before the runner loads it
 * (the action's task name, sandbox mode, API key variables, annotation positions). Read the way
 * `loadTask` reads it, so a FIFO, a device, a huge file, an alias bomb or 100,000 keys cannot
 * hang or crawl here either. Undefined when the file cannot be read or parsed: the runner then
 * reports the problem itself. Never throws.
 */
export async function peekTaskDocument(
  file: string,
): Promise<{ doc: Document; lineCounter: LineCounter; value: unknown } | undefined> {
  const read = await readInputFile(file, { maxBytes: MAX_SPEC_BYTES });
  if (!read.ok) return undefined;
  const { doc, lineCounter, problems, value } = parseYaml(read.text);
  return problems.length > 0 ? undefined : { doc, lineCounter, value };
}
