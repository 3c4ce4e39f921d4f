/**
 * A stdio MCP server for the tests: `node test/mcp/stdio-server.ts [--fail-start MESSAGE] [--hang]
 * [--calls FILE]`. With --fail-start it writes MESSAGE to stderr and exits 1 before speaking; with
 * --hang it never answers. Calls are appended to --calls FILE as JSON lines.
 */

// The SDK loads only for a server that speaks: --fail-start and --hang say so as soon as Node runs.
const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const failStart = option("--fail-start");
if (failStart !== undefined) {
  process.stderr.write(`starting...\n${failStart}\n`);
  process.exit(1);
}
if (argv.includes("--hang")) {
  process.stderr.write("hanging\n");
  setInterval(() => {}, 1000);
} else {
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { registerTestTools } = await import("./tools.ts");
  const server = new Server({ name: "test-stdio", version: "1.0.0" }, { capabilities: { tools: {} } });
  const calls = option("--calls");
  registerTestTools(server, { exitOnCrash: true, ...(calls && { calls }) });
  await server.connect(new StdioServerTransport());
}
