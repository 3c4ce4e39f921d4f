import { errorText } from "../core/errors.ts";
import type { AgentTool, AgentToolResult } from "../core/types.ts";
import { compileJsonSchema } from "../system/json-schema-check.ts";
import { type McpResultDetails, mapCallResult } from "./call-result.ts";
import type { McpConnection, ServerTool } from "./server-connection.ts";
import { assignToolName } from "./tool-names.ts";
import { offeredInputSchema } from "./tool-schema.ts";

/** Characters of a tool's description passed to the model: 4000. */
export const MAX_DESCRIPTION_CHARS = 4000;

/** One MCP tool as the model knows it, and where it leads. */
export interface McpToolEntry {
  /** The name the model calls (`mcp__S__T`, see tool-names.ts). */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
}

export interface McpToolOptions {
  /** Names in use (built-in and runner tools); receives the new ones. */
  taken: Set<string>;
  /** Bounds of the text the model sees from one call. Default: 2000 lines, 50 KiB. */
  maxLines?: number;
  maxBytes?: number;
}

/**
 * An agent tool for each offered tool of a server: `tools` are the ones its spec allows, in the
 * server's order. Arguments are checked against the server's schema as given (a schema ajv cannot
 * compile is left to the server to check); results are mapped and bounded by call-result.ts; a
 * call that fails (a timeout, the server gone) is an error result naming the server and why.
 */
export function createMcpTools(
  connection: McpConnection,
  tools: readonly ServerTool[],
  options: McpToolOptions,
): { tools: AgentTool<Record<string, unknown>, McpResultDetails>[]; entries: McpToolEntry[] } {
  const server = connection.spec.name;
  const entries: McpToolEntry[] = [];
  const agentTools = tools.map((tool) => {
    const name = assignToolName(server, tool.name, options.taken);
    entries.push({ name, server, tool: tool.name });
    const compiled = compileJsonSchema(tool.inputSchema, { strict: false });
    const description = tool.description.trim() || `The ${tool.name} tool of the MCP server ${server}.`;
    const agentTool: AgentTool<Record<string, unknown>, McpResultDetails> = {
      name,
      label: `${server}/${tool.name}`,
      description:
        description.length > MAX_DESCRIPTION_CHARS
          ? `${description.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`
          : description,
      parameters: offeredInputSchema(tool.inputSchema),
      validateArguments(args) {
        if (typeof args !== "object" || args === null || Array.isArray(args)) {
          return { ok: false, message: `The arguments of ${name} must be a JSON object.` };
        }
        if (!compiled.ok) return { ok: true, value: args };
        const violations = compiled.schema.check(args);
        if (violations.length === 0) return { ok: true, value: args };
        return {
          ok: false,
          message: `Invalid arguments for tool "${name}":\n${violations.join("\n")}\nReceived: ${clip(JSON.stringify(args))}`,
        };
      },
      async execute(_id, args, signal): Promise<AgentToolResult<McpResultDetails>> {
        const details = { server, tool: tool.name, truncated: false };
        try {
          const result = await connection.call(tool.name, args, signal);
          const mapped = mapCallResult(result, {
            ...(options.maxLines !== undefined && { maxLines: options.maxLines }),
            ...(options.maxBytes !== undefined && { maxBytes: options.maxBytes }),
          });
          return {
            content: mapped.content,
            details: { ...details, truncated: mapped.truncated },
            isError: mapped.isError,
          };
        } catch (error) {
          const why = errorText(error);
          return {
            content: [{ type: "text", text: `MCP server '${server}' could not run ${tool.name}: ${why}` }],
            details,
            isError: true,
          };
        }
      },
    };
    return agentTool;
  });
  return { tools: agentTools, entries };
}

function clip(text: string): string {
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
