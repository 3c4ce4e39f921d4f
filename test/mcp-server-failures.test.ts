/**
 * MCP servers that fail, through the built CLI. One that cannot start, never answers, cannot be
 * reached or lacks a tool its `tools:` lists stops the run before anything ran: exit 2, the server
 * named with why and its stderr's last line, no model call, no outputs. One that dies mid-run is
 * not restarted: the call gets an error result naming the crash, later calls the same, the run
 * goes on to its end. A call past the server's `timeout` is an error result.
 */
import { access } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "./helpers/cli.ts";
import { endsById, NODE, runMcpTask, STDIO_SERVER, textOf, yamlString } from "./helpers/mcp.ts";
import { closedPortUrl } from "./mock-llm/server.ts";

const stdio = (args: string[], extra = "") => `    command: ${yamlString(NODE)}
    args: [${[STDIO_SERVER, ...args].map(yamlString).join(", ")}]
${extra}`;

const task = (servers: string) => `name: mcp-failures
model: anthropic:claude-haiku-4-5
prompt: Use the servers.
tools: [read]
mcp_servers:
${servers}`;

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe("an MCP server that cannot be used stops the run before it starts (exit 2)", {
  timeout: 60_000,
}, () => {
  test.for([
    {
      what: "exits at start",
      servers: `  broken:\n${stdio(["--fail-start", "fatal: no config file at /etc/broken.json"])}`,
      expect: [
        "MCP server 'broken'",
        "could not start: the server exited with code 1",
        'its last stderr line: "fatal: no config file at /etc/broken.json"',
      ],
    },
    {
      what: "is not a program",
      servers: "  missing:\n    command: no-such-mcp-server-program\n",
      expect: ["MCP server 'missing' (no-such-mcp-server-program) could not start"],
    },
    {
      what: "never answers",
      // Long enough for Node to start and say so on a loaded machine; the server then says no more.
      servers: `  mute:\n${stdio(["--hang"], "    start_timeout: 5s\n")}`,
      expect: [
        "MCP server 'mute'",
        "did not answer within 5s (start_timeout)",
        'its last stderr line: "hanging"',
      ],
    },
    {
      what: "lacks a listed tool",
      servers: `  files:\n${stdio([], "    tools: [echo, ech0]\n")}`,
      expect: ["MCP server 'files' has no tool 'ech0' (mcp_servers.files.tools); it has: echo, add,"],
    },
  ])("a stdio server that $what", async (c) => {
    const dir = await tempWorkspace();
    const run = await runMcpTask(dir, task(c.servers), [{ text: "never asked" }]);
    expect(run.code, run.stdout).toBe(2);
    for (const text of c.expect) expect(run.stderr).toContain(text);
    expect(run.llm.requests).toHaveLength(0);
    expect(await exists(path.join(dir, ".agent-run", "events.jsonl"))).toBe(false);
  });

  test("an HTTP server nobody listens on", async () => {
    const dir = await tempWorkspace();
    const url = `${await closedPortUrl()}/mcp`;
    const run = await runMcpTask(dir, task(`  web:\n    url: ${url}\n`), [{ text: "never asked" }]);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toContain(`MCP server 'web' (${url}) could not start`);
    expect(run.stderr).toMatch(/ECONNREFUSED|fetch failed/);
    expect(run.llm.requests).toHaveLength(0);
  });
});

describe("an MCP server that fails mid-run", { timeout: 60_000 }, () => {
  test("crashes: the call and later ones get error results naming the crash; the run goes on", async () => {
    const dir = await tempWorkspace();
    const run = await runMcpTask(dir, task(`  files:\n${stdio([])}  other:\n${stdio([])}`), [
      { toolCalls: [{ id: "c1", name: "mcp__files__echo", arguments: { text: "before" } }] },
      { toolCalls: [{ id: "c2", name: "mcp__files__crash", arguments: {} }] },
      {
        toolCalls: [
          { id: "c3", name: "mcp__files__echo", arguments: { text: "after" } },
          { id: "c4", name: "mcp__other__echo", arguments: { text: "still here" } },
        ],
      },
      { text: "Done despite the crash." },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.llm.requests).toHaveLength(4);
    const ends = endsById(run.events);
    expect(textOf(ends.get("c1"))).toBe("echo: before");
    for (const id of ["c2", "c3"]) {
      expect(ends.get(id)?.isError).toBe(true);
      expect(textOf(ends.get(id))).toContain("MCP server 'files' could not run");
      expect(textOf(ends.get(id))).toContain("the server exited with code 3");
      expect(textOf(ends.get(id))).toContain('"crashing on purpose"');
    }
    expect(textOf(ends.get("c3"))).toContain("it is not restarted");
    expect(textOf(ends.get("c4"))).toBe("echo: still here");
    const byTool = (run.usage.tool_calls as { by_tool: Record<string, { errors: number }> }).by_tool;
    expect(byTool.mcp__files__crash?.errors).toBe(1);
    expect(byTool.mcp__files__echo?.errors).toBe(1);
  });

  test("a timeout too long for a timer is no timeout, not an instant one", async () => {
    const servers = `  files:\n${stdio([], "    timeout: 1000h\n    start_timeout: 1000h\n")}`;
    const dir = await tempWorkspace();
    const run = await runMcpTask(dir, task(servers), [
      { toolCalls: [{ id: "c1", name: "mcp__files__slow", arguments: { ms: 300 } }] },
      { text: "Done." },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const ends = endsById(run.events);
    expect(ends.get("c1")?.isError).toBe(false);
    expect(textOf(ends.get("c1"))).toBe("finally");
  });

  test("answers too slowly: past its timeout the call is an error result", async () => {
    const dir = await tempWorkspace();
    const run = await runMcpTask(dir, task(`  files:\n${stdio([], "    timeout: 500ms\n")}`), [
      { toolCalls: [{ id: "c1", name: "mcp__files__slow", arguments: { ms: 5000 } }] },
      { toolCalls: [{ id: "c2", name: "mcp__files__echo", arguments: { text: "fast" } }] },
      { text: "Done." },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const ends = endsById(run.events);
    expect(ends.get("c1")?.isError).toBe(true);
    expect(textOf(ends.get("c1"))).toContain("did not answer within 500ms (timeout)");
    expect(textOf(ends.get("c2"))).toBe("echo: fast");
  });
});
