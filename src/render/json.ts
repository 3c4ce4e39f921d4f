import type { CompactRunEvent } from "../run/compact-event.ts";

/**
 * JSON lines on stdout. On GitHub Actions the runner reads `##[` anywhere in a line as a command,
 * so it is broken with a zero-width space (still the same JSON string to a parser that ignores it).
 */
export function createJsonRenderer(
  write: (text: string) => void,
  onActions: boolean,
): (event: CompactRunEvent) => void {
  return (event) => {
    const line = JSON.stringify(event);
    write(`${onActions ? line.replaceAll("##[", "#\u200b#[") : line}\n`);
  };
}
