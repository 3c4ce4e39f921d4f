export {
  MAX_IMAGE_BYTES,
  type MappedResult,
  type McpCallResult,
  type McpResultDetails,
  mapCallResult,
} from "./call-result.ts";
export { createMcpTools, type McpToolEntry, type McpToolOptions } from "./mcp-tools.ts";
export { type McpConnection, McpStartFailure, openConnection, type ServerTool } from "./server-connection.ts";
export { type StartedMcpServers, type StartMcpServersOptions, startMcpServers } from "./start-servers.ts";
export { ProcessTransport, type ServerCommand, type ServerExit } from "./stdio-transport.ts";
export { assignToolName, MAX_TOOL_NAME_LENGTH, MCP_PREFIX, plainToolName } from "./tool-names.ts";
export { isOfferableRoot, offeredInputSchema } from "./tool-schema.ts";
