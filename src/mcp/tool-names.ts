/**
 * The names the model calls MCP tools by: `mcp__<server>__<tool>`. Every provider we speak to takes
 * tool names of 1 to 64 characters from `[A-Za-z0-9_-]` (OpenAI's limit; Anthropic's is the same
 * set, up to 128), so any other character becomes `_`, and a name that is then too long, or
 * clashes with one already given, keeps its first 55 characters and ends in `_` and 8 hex digits
 * of a hash of the server and tool names: stable from run to run, so hooks and usage.json can rely
 * on it. `agent-run validate --mcp` lists the names.
 */
import { createHash } from "node:crypto";

/** The longest tool name every provider accepts. */
export const MAX_TOOL_NAME_LENGTH = 64;
/** The prefix of every MCP tool name. */
export const MCP_PREFIX = "mcp__";

/** `mcp__S__T` with characters outside `[A-Za-z0-9_-]` replaced, before any shortening. */
export function plainToolName(server: string, tool: string): string {
  return `${MCP_PREFIX}${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * Gives each (server, tool) pair its name, in order; `taken` holds names already in use (the
 * built-in tools, earlier servers') and receives the new ones.
 */
export function assignToolName(server: string, tool: string, taken: Set<string>): string {
  const plain = plainToolName(server, tool);
  let name = plain;
  if (name.length > MAX_TOOL_NAME_LENGTH || taken.has(name)) {
    const hash = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, 8);
    name = `${plain.slice(0, MAX_TOOL_NAME_LENGTH - 9)}_${hash}`;
    for (let n = 2; taken.has(name); n++) name = `${plain.slice(0, MAX_TOOL_NAME_LENGTH - 12)}_${hash}${n}`;
  }
  taken.add(name);
  return name;
}
