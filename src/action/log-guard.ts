/**
 * Keeps text that came from the run (tool arguments, model text, hook messages the renderer
 * echoes) from being taken as a workflow command by the Actions runner. The runner reads every
 * line of a step's stdout as a command when it starts with `::` after leading whitespace, or
 * holds `##[` anywhere (the older syntax); a model that could emit `::add-mask::`, `::error::` or
 * `::set-output name=x::` would forge annotations, hide log text or set outputs.
 */
import { looksLikeWorkflowCommand, stopCommandsBlock } from "../run/workflow-commands.ts";

/** Lines the renderer itself writes that fold the log and can do no harm: let through as commands. */
const OWN_COMMAND = /^::(group|endgroup)::/;

/** The lines of `text` as the runner splits them: on `\r\n`, `\n` or a lone `\r`. */
function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

export interface CommandGuard {
  /** Writes a chunk; complete lines go out at once, an unfinished last line waits for its end. */
  write: (chunk: string) => void;
  /** Writes what is still buffered (an unfinished last line), guarded, with a newline. */
  flush: () => void;
}

export interface CommandGuardOptions {
  /** Lines that may pass as commands. Default: `::group::` and `::endgroup::` at the line start. */
  allow?: RegExp;
}

/**
 * Wraps `write` so that no line can act as a workflow command, except the renderer's own
 * `::group::` / `::endgroup::` lines. A line that could is written between
 * `::stop-commands::<token>` and `::<token>::` with an unguessable token, so it shows in the log
 * verbatim but the runner does not act on it. Every other line passes unchanged.
 */
export function guardWorkflowCommands(
  write: (chunk: string) => void,
  options: CommandGuardOptions = {},
): CommandGuard {
  const allow = options.allow ?? OWN_COMMAND;
  let pending = "";

  const emit = (lines: string[]) => {
    let out = "";
    for (const line of lines) {
      if (looksLikeWorkflowCommand(line) && !allow.test(line)) out += stopCommandsBlock(line);
      else out += `${line}\n`;
    }
    if (out !== "") write(out);
  };

  return {
    write(chunk) {
      const lines = splitLines(pending + chunk);
      // The last element is the unfinished line ("" when the chunk ended with a newline).
      pending = lines.pop() ?? "";
      emit(lines);
    },
    flush() {
      const rest = pending;
      pending = "";
      if (rest !== "") emit([rest]);
    },
  };
}
