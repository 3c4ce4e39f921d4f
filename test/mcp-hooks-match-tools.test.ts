/**
 * Hooks apply to MCP tools as to built-ins, by the name the model calls (`mcp__S__T`) or a glob
 * (`mcp__web__*`): a declarative block, a command guard (the call's JSON on stdin, exit 2 blocks)
 * and an after_tool_call command. Blocked calls never reach the server; usage.json counts them as
 * blocked. A rule naming a server that is not configured is a spec error.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { endsById, NODE, runMcpTask, STDIO_SERVER, textOf, yamlString } from "./helpers/mcp.ts";
import { startHttpMcp, type TestHttpMcp } from "./mcp/http-server.ts";

let http: TestHttpMcp | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

describe("hooks match MCP tools by name and glob", { timeout: 60_000 }, () => {
  test("a block by name, a block by glob, a command guard and an after hook", async () => {
    http = await startHttpMcp();
    const dir = await tempWorkspace();
    const calls = path.join(dir, "calls.jsonl");
    await writeFile(
      path.join(dir, "guard.sh"),
      '#!/bin/sh\ninput=$(cat)\ncase "$input" in *forbidden*) echo "no forbidden words in echoes" >&2; exit 2;; esac\nexit 0\n',
      { mode: 0o755 },
    );
    const yaml = `name: mcp-hooks
model: anthropic:claude-haiku-4-5
prompt: Use the servers.
tools: [read]
mcp_servers:
  files:
    command: ${yamlString(NODE)}
    args: [${yamlString(STDIO_SERVER)}, --calls, ${yamlString(calls)}]
  web:
    url: ${http.url}
hooks:
  before_tool_call:
    - match: { tool: mcp__files__fail }
      block: "fail is not for this task"
    - match: { tool: "mcp__web__*" }
      block: "the web server is read-only today"
    - match: { tool: [read, mcp__files__echo] }
      run: ./guard.sh
  after_tool_call:
    - match: { tool: "mcp__files__e?ho" }
      run: echo checked {{ tool.name }}
`;
    const run = await runMcpTask(dir, yaml, [
      {
        toolCalls: [
          { id: "c1", name: "mcp__files__fail", arguments: {} },
          { id: "c2", name: "mcp__web__add", arguments: { a: 1, b: 2 } },
          { id: "c3", name: "mcp__files__echo", arguments: { text: "a forbidden word" } },
          { id: "c4", name: "mcp__files__echo", arguments: { text: "fine" } },
          { id: "c5", name: "mcp__files__add", arguments: { a: 1, b: 2 } },
        ],
      },
      { text: "Done." },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const ends = endsById(run.events);
    expect(ends.get("c1")?.blocked).toBe(true);
    expect(textOf(ends.get("c1"))).toBe("Tool call blocked: fail is not for this task");
    expect(ends.get("c2")?.blocked).toBe(true);
    expect(textOf(ends.get("c2"))).toBe("Tool call blocked: the web server is read-only today");
    expect(ends.get("c3")?.blocked).toBe(true);
    expect(textOf(ends.get("c3"))).toContain("no forbidden words in echoes");
    expect(ends.get("c4")?.blocked).toBe(false);
    expect(textOf(ends.get("c4"))).toContain("echo: fine");
    expect(textOf(ends.get("c4"))).toContain("checked mcp__files__echo");
    expect(textOf(ends.get("c5"))).toBe("3");

    // Only the allowed calls reached the servers (run in parallel: in any order).
    const reached = (await readFile(calls, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    reached.sort((a, b) => a.name.localeCompare(b.name));
    expect(reached).toEqual([
      { name: "add", args: { a: 1, b: 2 } },
      { name: "echo", args: { text: "fine" } },
    ]);
    expect(http.calls).toEqual([]);
    const byTool = (run.usage.tool_calls as { by_tool: Record<string, { blocked: number; calls: number }> })
      .by_tool;
    expect(byTool.mcp__files__echo).toMatchObject({ calls: 2, blocked: 1 });
    expect(byTool.mcp__web__add).toMatchObject({ calls: 1, blocked: 1 });
    expect(run.summary).toContain("the web server is read-only today");
  });

  test("a rule naming a server that is not configured is a spec error, with a suggestion", async () => {
    const dir = await tempWorkspace({
      "task.yml": `name: typo
model: anthropic:claude-haiku-4-5
prompt: x
mcp_servers:
  github:
    url: http://127.0.0.1:9/mcp
hooks:
  before_tool_call:
    - match: { tool: "mcp__gihtub__*" }
      block: no
`,
    });
    const run = await runCli(["validate", "task.yml"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "task.yml:9:22 hooks.before_tool_call[0].match.tool: no MCP server 'gihtub' in mcp_servers (expected one of github) — did you mean 'mcp__github__*'?",
    );
  });

  test("a rule naming a tool its server lacks stops the run before it starts; validate --mcp says so too", async () => {
    const dir = await tempWorkspace();
    const yaml = `name: tool-typo
model: anthropic:claude-haiku-4-5
prompt: Use the server.
tools: [read]
mcp_servers:
  files:
    command: ${yamlString(NODE)}
    args: [${yamlString(STDIO_SERVER)}]
    tools: [echo]
hooks:
  before_tool_call:
    - match: { tool: [mcp__files__ehco, "mcp__files__nothing*"] }
      block: "no echoes"
  after_tool_call:
    - match: { tool: mcp__files__add }
      run: echo left out by tools, still a tool of the server
`;
    const run = await runMcpTask(dir, yaml, [{ text: "never asked" }]);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toContain(
      `hooks.before_tool_call[0].match.tool: MCP server 'files' has no tool "mcp__files__ehco" — did you mean 'mcp__files__echo'?`,
    );
    // The glob and the tool that tools: leaves out are taken as written.
    expect(run.stderr).not.toContain("nothing*");
    expect(run.stderr).not.toContain("after_tool_call");
    expect(run.llm.requests).toHaveLength(0);
    const validate = await runCli(["validate", "task.yml", "--mcp"], { cwd: dir });
    expect(validate.code).toBe(2);
    expect(validate.stderr).toContain(`has no tool "mcp__files__ehco"`);
  });
});
