/**
 * An MCP tool's result is bounded like the built-in tools' (system/truncate.ts: 2000 lines or
 * 50 KiB): a server answering 5000 lines gives the model the head and a note of what was cut, and
 * the cut part never reaches the model, through the built CLI.
 */
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "./helpers/cli.ts";
import { endsById, NODE, runMcpTask, STDIO_SERVER, textOf, yamlString } from "./helpers/mcp.ts";

const task = `name: mcp-bounded
model: anthropic:claude-haiku-4-5
prompt: Use the server.
tools: [read]
mcp_servers:
  files:
    command: ${yamlString(NODE)}
    args: [${yamlString(STDIO_SERVER)}]
    tools: [big]
`;

describe("an MCP tool's large result", { timeout: 60_000 }, () => {
  test("keeps its head within the tool result budget, with a note; the rest never reaches the model", async () => {
    const dir = await tempWorkspace();
    const run = await runMcpTask(dir, task, [
      { toolCalls: [{ id: "c1", name: "mcp__files__big", arguments: { lines: 5000 } }] },
      { text: "Done." },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const text = textOf(endsById(run.events).get("c1"));
    expect(text).toContain("line 1\n");
    expect(text).toContain("\nline 2000");
    expect(text).not.toContain("line 2001");
    expect(text).toMatch(/\[Result cut: .* of text shown \(at most 2000 lines or 50\.0 KB\)\.\]/);
    const second = JSON.stringify(run.llm.requests[1]?.body);
    expect(second).toContain("line 2000");
    expect(second).not.toContain("line 4999");
  });
});
