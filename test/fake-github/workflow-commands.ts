/**
 * The Actions runner's reading of a step's stdout as workflow commands (actions/runner,
 * ActionCommandManager + ActionCommand): each line (split on \n, \r\n or a lone \r) is tried as
 * `::name props::data` after trimming leading whitespace, then as the old `##[name props]data`
 * found anywhere in the line; only registered command names count. `::stop-commands::TOKEN`
 * pauses all processing until a `::TOKEN::` line (case-insensitive) resumes it.
 */

export interface WorkflowCommand {
  name: string;
  properties: Record<string, string>;
  data: string;
  /** The stdout line it came from. */
  line: string;
}

export interface ParsedCommands {
  /** Commands the runner would act on (not stop/resume themselves). */
  commands: WorkflowCommand[];
  /** Values `::add-mask::` registered. */
  masks: string[];
  /** `error`, `warning` and `notice` commands: the step's annotations. */
  annotations: WorkflowCommand[];
  /** Outputs set with the deprecated `::set-output name=X::V`. */
  outputs: Record<string, string>;
}

const REGISTERED = [
  "add-mask",
  "add-matcher",
  "add-path",
  "debug",
  "echo",
  "endgroup",
  "error",
  "group",
  "notice",
  "remove-matcher",
  "save-state",
  "set-env",
  "set-output",
  "warning",
];

function unescapeData(text: string): string {
  return text.replace(/%0D/g, "\r").replace(/%0A/g, "\n").replace(/%25/g, "%");
}

function unescapeProperty(text: string): string {
  return text
    .replace(/%0D/g, "\r")
    .replace(/%0A/g, "\n")
    .replace(/%3A/g, ":")
    .replace(/%2C/g, ",")
    .replace(/%25/g, "%");
}

function parseV2(line: string, registered: Set<string>): WorkflowCommand | undefined {
  const message = line.trimStart();
  if (!message.startsWith("::")) return undefined;
  const end = message.indexOf("::", 2);
  if (end < 0) return undefined;
  const info = message.slice(2, end);
  const space = info.indexOf(" ");
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase();
  if (!registered.has(name)) return undefined;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const pair of info
      .slice(space + 1)
      .trim()
      .split(",")) {
      const eq = pair.indexOf("=");
      if (eq > 0 && eq < pair.length - 1)
        properties[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1));
    }
  }
  return { name, properties, data: unescapeData(message.slice(end + 2)), line };
}

function parseV1(line: string, registered: Set<string>): WorkflowCommand | undefined {
  const prefix = line.indexOf("##[");
  if (prefix < 0) return undefined;
  const close = line.indexOf("]", prefix);
  if (close < 0) return undefined;
  const info = line.slice(prefix + 3, close);
  const space = info.indexOf(" ");
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase();
  if (!registered.has(name)) return undefined;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const pair of info.slice(space + 1).split(";")) {
      const eq = pair.indexOf("=");
      if (eq > 0 && eq < pair.length - 1) properties[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return { name, properties, data: line.slice(close + 1), line };
}

/** Reads `stdout` as the runner would and returns what it would have acted on. */
export function parseWorkflowCommands(stdout: string): ParsedCommands {
  const registered = new Set([...REGISTERED, "stop-commands"]);
  const parsed: ParsedCommands = { commands: [], masks: [], annotations: [], outputs: {} };
  let stopToken: string | undefined;
  for (const line of stdout.split(/\r\n|\r|\n/)) {
    if (line === "") continue;
    const command = parseV2(line, registered) ?? parseV1(line, registered);
    if (!command) continue;
    if (stopToken !== undefined) {
      if (stopToken !== "" && command.name === stopToken) {
        registered.delete(stopToken);
        stopToken = undefined;
      }
      continue;
    }
    if (command.name === "stop-commands") {
      // An empty token can never be resumed: processing stays off for the rest of the step.
      stopToken = command.data.toLowerCase();
      registered.add(stopToken);
      continue;
    }
    parsed.commands.push(command);
    if (command.name === "add-mask") parsed.masks.push(command.data);
    if (["error", "warning", "notice"].includes(command.name)) parsed.annotations.push(command);
    if (command.name === "set-output" && command.properties.name) {
      parsed.outputs[command.properties.name] = command.data;
    }
  }
  return parsed;
}
