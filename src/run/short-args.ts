/** The one argument that says most about a call, per built-in tool. */
const KEY_ARGUMENT: Record<string, string> = {
  bash: "command",
  read: "path",
  write: "path",
  edit: "path",
  ls: "path",
  grep: "pattern",
  find: "pattern",
};

/**
 * A one-line, bounded form of a tool call's arguments for logs and the summary: the key argument
 * for built-in tools, compact JSON otherwise. Newlines are flattened so it can never start a new
 * log line (which on GitHub could be read as a workflow command).
 */
export function shortArgs(toolName: string, args: unknown, max = 80): string {
  let text: string;
  const key = KEY_ARGUMENT[toolName];
  const record = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : undefined;
  if (typeof args === "string") text = args;
  else if (key && typeof record?.[key] === "string") text = record[key] as string;
  else {
    try {
      text = JSON.stringify(args) ?? "";
    } catch {
      text = String(args);
    }
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
