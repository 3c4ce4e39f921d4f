import { AgentRunError, errorText } from "../core/errors.ts";
import type { AnyAgentTool } from "../core/types.ts";
import type { McpServerSpec } from "../spec/types.ts";
import { createMcpTools, type McpToolEntry } from "./mcp-tools.ts";
import { type McpConnection, McpStartFailure, openConnection } from "./server-connection.ts";
import type { ServerCommand } from "./stdio-transport.ts";

/** The spec's servers, running, and their tools for the agent. */
export interface StartedMcpServers {
  /** The offered tools, server by server in the spec's order, each server's in its own order. */
  tools: AnyAgentTool[];
  entries: McpToolEntry[];
  /** Each server with every tool it lists, offered or not (for `validate --mcp`). */
  servers: { spec: McpServerSpec; listed: string[] }[];
  /** Stops every server, process trees included. Never rejects. */
  close(): Promise<void>;
}

export interface StartMcpServersOptions {
  /** How to run a stdio server: its command, wrapped in the run's sandbox when there is one. */
  command(spec: Extract<McpServerSpec, { transport: "stdio" }>): ServerCommand;
  /** Tool names already in use; receives the MCP tools'. */
  taken: Set<string>;
  /** Applied to error messages, which may quote what a server printed. */
  redact?: (text: string) => string;
  maxLines?: number;
  maxBytes?: number;
}

/**
 * Starts every server at once and lists its tools. Any server that cannot start or list its tools,
 * or lacks a tool its `tools:` names, stops them all and throws an `AgentRunError` of kind `usage`
 * (code `mcp_server_failed`, exit 2) naming each such server, why, and the last line of its stderr.
 */
export async function startMcpServers(
  specs: readonly McpServerSpec[],
  options: StartMcpServersOptions,
): Promise<StartedMcpServers> {
  const redact = options.redact ?? ((text: string) => text);
  const opened = await Promise.allSettled(
    specs.map((spec) => openConnection(spec, spec.transport === "stdio" ? options.command(spec) : undefined)),
  );
  const connections = opened.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const close = async () => {
    await Promise.all(connections.map((connection) => connection.close()));
  };
  const failures: string[] = [];
  opened.forEach((result, i) => {
    const spec = specs[i];
    if (!spec) return;
    if (result.status === "rejected") failures.push(startFailureText(spec, result.reason));
    else failures.push(...missingTools(result.value));
  });
  if (failures.length > 0) {
    await close();
    const message = redact(failures.join("\n"));
    throw new AgentRunError("usage", "mcp_server_failed", message, {
      shortMessage: message.split("\n", 1)[0],
    });
  }

  const tools: AnyAgentTool[] = [];
  const entries: McpToolEntry[] = [];
  for (const connection of connections) {
    const allowed = connection.spec.tools;
    const offered = allowed
      ? connection.tools.filter((tool) => allowed.includes(tool.name))
      : connection.tools;
    const made = createMcpTools(connection, offered, {
      taken: options.taken,
      ...(options.maxLines !== undefined && { maxLines: options.maxLines }),
      ...(options.maxBytes !== undefined && { maxBytes: options.maxBytes }),
    });
    tools.push(...made.tools);
    entries.push(...made.entries);
  }
  return {
    tools,
    entries,
    servers: connections.map((connection) => ({
      spec: connection.spec,
      listed: connection.tools.map((tool) => tool.name),
    })),
    close,
  };
}

function startFailureText(spec: McpServerSpec, reason: unknown): string {
  const why = errorText(reason);
  const stderr =
    reason instanceof McpStartFailure && reason.stderr
      ? `; its last stderr line: ${JSON.stringify(reason.stderr)}`
      : "";
  return `MCP server '${spec.name}' (${spec.display}) could not start: ${why}${stderr}`;
}

/** `tools:` entries the server does not have, one message a server. */
function missingTools(connection: McpConnection): string[] {
  const listed = new Set(connection.tools.map((tool) => tool.name));
  const missing = (connection.spec.tools ?? []).filter((name) => !listed.has(name));
  if (missing.length === 0) return [];
  const has = [...listed].join(", ") || "no tools";
  return [
    `MCP server '${connection.spec.name}' has no tool ${missing.map((name) => `'${name}'`).join(", ")} (mcp_servers.${connection.spec.name}.tools); it has: ${has}`,
  ];
}
