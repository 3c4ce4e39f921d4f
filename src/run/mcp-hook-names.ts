/**
 * Hook rules that name one MCP tool exactly (`mcp__files__delete`, no `*` or `?`) must name a tool
 * its server has. The spec check (spec/normalize-mcp.ts) can only see that the server is
 * configured; which tools it has is known once it is started. A typo (`mcp__files__delte`) would
 * otherwise be a `block` rule that silently blocks nothing, so it stops the run before it starts,
 * exit 2, with the names the server has. Globs are taken as written: they may match nothing on
 * purpose.
 */
import { AgentRunError } from "../core/errors.ts";
import type { StartedMcpServers } from "../mcp/index.ts";
// Not from mcp/index.ts: that would load the SDK for every run, with servers or not.
import { MCP_PREFIX, plainToolName } from "../mcp/tool-names.ts";
import type { TaskSpec } from "../spec/index.ts";
import { closest } from "../spec/suggest.ts";

/**
 * Throws an `AgentRunError` (usage, `mcp_hook_tool_unknown`) listing every exact MCP tool name in
 * `before_tool_call` and `after_tool_call` rules that no started server has. A tool the server
 * lists but `tools:` leaves out counts as existing (a rule for it never fires, harmlessly).
 */
export function checkHookToolNames(spec: TaskSpec, started: StartedMcpServers): void {
  const byServer = new Map<string, Set<string>>();
  for (const { spec: server, listed } of started.servers) {
    const names = new Set(listed.map((tool) => plainToolName(server.name, tool)));
    for (const entry of started.entries) if (entry.server === server.name) names.add(entry.name);
    byServer.set(server.name, names);
  }
  const problems: string[] = [];
  const hooks = [
    ["before_tool_call", spec.hooks.beforeToolCall],
    ["after_tool_call", spec.hooks.afterToolCall],
  ] as const;
  for (const [hook, rules] of hooks) {
    for (const rule of rules) {
      for (const pattern of rule.match?.tools ?? []) {
        if (!pattern.startsWith(MCP_PREFIX) || /[*?]/.test(pattern)) continue;
        const server = pattern.slice(MCP_PREFIX.length).split("__", 1)[0] ?? "";
        const names = byServer.get(server);
        if (!names || names.has(pattern)) continue;
        const near = closest(pattern, [...names]);
        problems.push(
          `hooks.${hook}[${rule.index}].match.tool: MCP server '${server}' has no tool ${JSON.stringify(pattern)}${near ? ` — did you mean '${near}'?` : ""} (it has: ${listed([...names])})`,
        );
      }
    }
  }
  if (problems.length === 0) return;
  const message = problems.join("\n");
  throw new AgentRunError("usage", "mcp_hook_tool_unknown", message, {
    shortMessage: problems[0] ?? message,
  });
}

/** Names shown of a server's tools at most: 20 (`validate --mcp` lists them all). */
const MAX_NAMES_SHOWN = 20;

function listed(names: string[]): string {
  if (names.length === 0) return "no tools";
  const shown = names.slice(0, MAX_NAMES_SHOWN).join(", ");
  return names.length > MAX_NAMES_SHOWN ? `${shown} and ${names.length - MAX_NAMES_SHOWN} more` : shown;
}
