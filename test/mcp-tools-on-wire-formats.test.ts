/**
 * MCP servers' tools through the built CLI on each wire format: a stdio server (the test server,
 * run by the runner) and a streamable HTTP one (in this process), with allow lists. The model is
 * offered each allowed tool as mcp__S__T with the server's own schema (root made acceptable to the
 * providers), never an unlisted one, which cannot be called either; results keep text, images and
 * the server's isError; usage.json counts calls and errors by the mcp__ name.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { tempWorkspace } from "./helpers/cli.ts";
import {
  endsById,
  NODE,
  offeredTools,
  runMcpTask,
  STDIO_SERVER,
  textOf,
  WIRE_FORMATS,
  yamlString,
} from "./helpers/mcp.ts";
import { startHttpMcp, type TestHttpMcp } from "./mcp/http-server.ts";
import { TEST_TOOLS } from "./mcp/tools.ts";

let http: TestHttpMcp | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

const task = (model: string, url: string, calls: string) => `name: mcp-wire
model: ${model}
prompt: Use the servers.
tools: [read]
mcp_servers:
  files:
    command: ${yamlString(NODE)}
    args: [${yamlString(STDIO_SERVER)}, --calls, ${yamlString(calls)}]
    tools: [echo, add, picture, fail, dotted.name/tool]
  web:
    url: ${url}
    tools: [add]
`;

describe.each(WIRE_FORMATS)("MCP tools on the $name wire format", ({ name, model }) => {
  test("offered with their schemas, called, results kept; unlisted tools neither offered nor callable", {
    timeout: 60_000,
  }, async () => {
    http = await startHttpMcp();
    const dir = await tempWorkspace();
    const calls = path.join(dir, "calls.jsonl");
    const run = await runMcpTask(dir, task(model, http.url, calls), [
      {
        toolCalls: [
          { id: "c1", name: "mcp__files__echo", arguments: { text: "hi" } },
          { id: "c2", name: "mcp__web__add", arguments: { a: 2, b: 3 } },
          { id: "c3", name: "mcp__files__picture", arguments: {} },
          { id: "c4", name: "mcp__files__fail", arguments: {} },
          { id: "c5", name: "mcp__files__env", arguments: { name: "PATH" } },
          { id: "c6", name: "mcp__files__dotted_name_tool", arguments: {} },
          { id: "c7", name: "mcp__files__echo", arguments: { text: "" } },
        ],
        usage: { input: 10, output: 5 },
      },
      { text: "Done.", usage: { input: 10, output: 2 } },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.llm.requests).toHaveLength(2);

    const offered = offeredTools(run.llm.requests[0]);
    expect(
      Object.keys(offered)
        .filter((n) => n.startsWith("mcp__"))
        .sort(),
    ).toEqual([
      "mcp__files__add",
      "mcp__files__dotted_name_tool",
      "mcp__files__echo",
      "mcp__files__fail",
      "mcp__files__picture",
      "mcp__web__add",
    ]);
    const schema = (tool: string) => TEST_TOOLS.find((t) => t.name === tool)?.inputSchema;
    expect(offered.mcp__files__echo).toEqual(schema("echo"));
    // add's root has $schema and anyOf, which providers refuse at the root: offered without them.
    const { $schema: _s, anyOf: _o, ...addOffered } = schema("add") as Record<string, unknown>;
    expect(offered.mcp__web__add).toEqual(addOffered);
    expect(offered.mcp__files__picture).toEqual({ type: "object", properties: {} });

    const ends = endsById(run.events);
    expect(textOf(ends.get("c1"))).toBe("echo: hi");
    expect(ends.get("c1")?.isError).toBe(false);
    expect(textOf(ends.get("c2"))).toBe("5");
    expect(ends.get("c3")?.result?.content.map((p) => p.type)).toEqual(["text", "image"]);
    expect(ends.get("c4")?.isError).toBe(true);
    expect(textOf(ends.get("c4"))).toBe("the tool failed on purpose");
    expect(ends.get("c5")?.isError).toBe(true);
    expect(textOf(ends.get("c5"))).toContain('Tool "mcp__files__env" does not exist');
    expect(textOf(ends.get("c6"))).toBe("dotted tool ran");
    // Checked against the server's schema before it is sent: minLength 1.
    expect(ends.get("c7")?.isError).toBe(true);
    expect(textOf(ends.get("c7"))).toContain("/text: must NOT have fewer than 1 characters");

    // What reached the servers: never env, never the empty echo.
    const stdioCalls = (await readFile(calls, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).name);
    expect(stdioCalls.sort()).toEqual(["dotted.name/tool", "echo", "fail", "picture"]);
    expect(http?.calls).toEqual([{ name: "add", args: { a: 2, b: 3 } }]);

    // The model saw the results: the image went to it, and the error as an error.
    const second = JSON.stringify(run.llm.requests[1]?.body);
    expect(second).toContain("echo: hi");
    expect(second).toContain("iVBORw0KGgo");
    if (name === "anthropic") {
      // The server's isError is Anthropic's is_error.
      const messages = (run.llm.requests[1]?.body.messages ?? []) as { content: unknown }[];
      const blocks = messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter(
          (b): b is { tool_use_id: string; is_error?: boolean } =>
            (b as { type?: string }).type === "tool_result",
        );
      expect(blocks.find((b) => b.tool_use_id === "c4")?.is_error).toBe(true);
      expect(blocks.find((b) => b.tool_use_id === "c1")?.is_error).toBeFalsy();
    }

    const byTool = (run.usage.tool_calls as { by_tool: Record<string, { calls: number; errors: number }> })
      .by_tool;
    expect(byTool.mcp__files__echo).toMatchObject({ calls: 2, errors: 1 });
    expect(byTool.mcp__files__fail).toMatchObject({ calls: 1, errors: 1 });
    expect(byTool.mcp__web__add).toMatchObject({ calls: 1, errors: 0 });
    expect(byTool.mcp__files__env).toMatchObject({ calls: 1, errors: 1 });
  });
});
