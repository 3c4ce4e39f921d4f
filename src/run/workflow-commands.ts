/**
 * Keeping run text (tool arguments, model text, messages) from acting as a GitHub Actions workflow
 * command. The runner reads a line of a step's stdout or stderr as a command when, after leading
 * whitespace, it starts with `::` (`::add-mask::`, `::error::`, `::set-output …::`), or when it
 * holds `##[` anywhere (the older syntax).
 */
import { randomBytes } from "node:crypto";

/** True when the Actions runner could read `line` as a workflow command. */
export function looksLikeWorkflowCommand(line: string): boolean {
  return /^[\s\p{Cf}]*::/u.test(line) || line.includes("##[");
}

/**
 * One log line built from `text` that cannot run a workflow command: line breaks become spaces
 * (so nothing can start a new line), `##[` is broken by a zero-width space and a leading `::`
 * gets a visible `\` in front. Text that needs none of this is returned unchanged.
 */
export function escapeWorkflowCommandText(text: string): string {
  let line = text.replace(/\r\n|\r|\n/g, " ").replaceAll("##[", "#\u200b#[");
  if (/^[\s\p{Cf}]*::/u.test(line)) line = `\\${line}`;
  return line;
}

/**
 * Wraps multi-line text (e.g. a tool's output) so that the runner treats none of it as a command:
 * `::stop-commands::<token>` before, `::<token>::` after, with a fresh random token the text cannot
 * guess; a text that contains the token (it cannot, short of luck) gets a new one.
 */
export function stopCommandsBlock(text: string, token = randomBytes(16).toString("hex")): string {
  let safe = token;
  while (text.includes(safe)) safe = randomBytes(16).toString("hex");
  const body = text.endsWith("\n") ? text : `${text}\n`;
  return `::stop-commands::${safe}\n${body}::${safe}::\n`;
}
