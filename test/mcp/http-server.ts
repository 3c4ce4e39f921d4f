/**
 * A streamable HTTP MCP server for the tests, on 127.0.0.1 (port 0), stateless: each POST gets a
 * fresh server and transport. Records every request's headers and every tool call. With
 * `endSessionAfterMs`, it names a session in its answers, so a client ends it with a DELETE at
 * close, and answers that DELETE that much later (a server slow to let go).
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { registerTestTools } from "./tools.ts";

/** Date.now() when a DELETE (a session's end) came, and when it was answered. */
export interface SessionEnd {
  at: number;
  answeredAt?: number;
}

export interface TestHttpMcp {
  /** http://127.0.0.1:PORT/mcp */
  url: string;
  headers: IncomingHttpHeaders[];
  calls: { name: string; args: unknown }[];
  sessionEnds: SessionEnd[];
  close(): Promise<void>;
}

export async function startHttpMcp(options: { endSessionAfterMs?: number } = {}): Promise<TestHttpMcp> {
  const headers: IncomingHttpHeaders[] = [];
  const calls: { name: string; args: unknown }[] = [];
  const sessionEnds: SessionEnd[] = [];
  const { endSessionAfterMs } = options;
  const http = createServer(async (req, res) => {
    headers.push(req.headers);
    if (req.method === "DELETE" && endSessionAfterMs !== undefined) {
      const end: SessionEnd = { at: Date.now() };
      sessionEnds.push(end);
      setTimeout(() => {
        end.answeredAt = Date.now();
        res.writeHead(200).end();
      }, endSessionAfterMs);
      return;
    }
    // The stateless transport takes any session id a client sends back.
    if (endSessionAfterMs !== undefined) res.setHeader("mcp-session-id", "test-session");
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const server = new Server({ name: "test-http", version: "1.0.0" }, { capabilities: { tools: {} } });
    registerTestTools(server, { onCall: (name, args) => calls.push({ name, args }) });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    calls,
    sessionEnds,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
