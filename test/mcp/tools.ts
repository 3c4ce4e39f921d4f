/**
 * The tools of the test MCP servers (stdio and HTTP), on the SDK's low-level `Server` so each
 * schema is exactly the JSON Schema written here, as a real server would list it.
 */

import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** A 1x1 PNG. */
export const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export const TEST_TOOLS = [
  {
    name: "echo",
    description: "Echoes its text back.",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", minLength: 1 } },
      required: ["text"],
      additionalProperties: false,
    },
  },
  {
    name: "add",
    description: "Adds two integers.",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { a: { type: "integer" }, b: { type: "integer" } },
      required: ["a", "b"],
      anyOf: [{ required: ["a"] }, { required: ["b"] }],
    },
  },
  { name: "picture", description: "Returns a picture.", inputSchema: { type: "object" } },
  { name: "fail", description: "Always reports an error.", inputSchema: { type: "object" } },
  {
    name: "env",
    description: "Returns an environment variable.",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
  {
    name: "write_file",
    description: "Writes a file.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, text: { type: "string" } },
      required: ["path", "text"],
    },
  },
  {
    name: "http_get",
    description: "Fetches a URL.",
    inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  },
  {
    name: "spawn_sleeper",
    description: "Starts a background process.",
    inputSchema: { type: "object", properties: { marker: { type: "string" } }, required: ["marker"] },
  },
  {
    name: "big",
    description: "Returns a lot of text.",
    inputSchema: { type: "object", properties: { lines: { type: "integer" } } },
  },
  { name: "crash", description: "Exits the server.", inputSchema: { type: "object" } },
  {
    name: "slow",
    description: "Answers after a while.",
    inputSchema: { type: "object", properties: { ms: { type: "integer" } } },
  },
  { name: "argv", description: "Returns the server's arguments.", inputSchema: { type: "object" } },
  {
    name: "dotted.name/tool",
    description: "A tool whose name no provider takes as is.",
    inputSchema: { type: "object" },
  },
] as const;

type Text = { type: "text"; text: string };
const text = (value: string): { content: Text[] } => ({ content: [{ type: "text", text: value }] });

/** Registers the tools; `onCall` hears each call (the HTTP server records them). `crash` exits the process with `exitOnCrash`. */
export function registerTestTools(
  server: Server,
  options: { onCall?: (name: string, args: unknown) => void; calls?: string; exitOnCrash?: boolean } = {},
): void {
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...TEST_TOOLS] as never[] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    options.onCall?.(req.params.name, args);
    if (options.calls) appendFileSync(options.calls, `${JSON.stringify({ name: req.params.name, args })}\n`);
    switch (req.params.name) {
      case "echo":
        return text(`echo: ${String(args.text)}`);
      case "add":
        return {
          content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }],
          structuredContent: { sum: Number(args.a) + Number(args.b) },
        };
      case "picture":
        return {
          content: [
            { type: "text", text: "a picture:" },
            { type: "image", data: PNG_1X1, mimeType: "image/png" },
          ],
        };
      case "fail":
        return { content: [{ type: "text", text: "the tool failed on purpose" }], isError: true };
      case "env":
        return text(`${String(args.name)}=${process.env[String(args.name)] ?? "(unset)"}`);
      case "write_file":
        try {
          writeFileSync(String(args.path), String(args.text));
          return text(`wrote ${String(args.path)}`);
        } catch (error) {
          return {
            ...text(`could not write ${String(args.path)}: ${(error as Error).message}`),
            isError: true,
          };
        }
      case "http_get":
        return await new Promise((resolve) => {
          const req = request(String(args.url), { timeout: 3000 }, (res) => {
            res.resume();
            resolve(text(`status ${res.statusCode}`));
          });
          req.on("error", (error) => resolve({ ...text(`network error: ${error.message}`), isError: true }));
          req.on("timeout", () => req.destroy(new Error("timed out")));
          req.end();
        });
      case "spawn_sleeper": {
        const child = spawn("sleep", ["987654", String(args.marker)], { stdio: "ignore" });
        return text(`started ${child.pid}`);
      }
      case "big": {
        const lines = Number(args.lines ?? 5000);
        return text(Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join("\n"));
      }
      case "crash":
        if (!options.exitOnCrash) return { ...text("this server does not crash"), isError: true };
        process.stderr.write("crashing on purpose\n");
        process.exit(3);
        break;
      case "slow":
        await new Promise((resolve) => setTimeout(resolve, Number(args.ms ?? 5000)));
        return text("finally");
      case "argv":
        return text(JSON.stringify(process.argv.slice(2)));
      case "dotted.name/tool":
        return text("dotted tool ran");
    }
    return { ...text(`unknown tool ${req.params.name}`), isError: true };
  });
}
