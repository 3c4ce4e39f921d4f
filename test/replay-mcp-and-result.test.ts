/**
 * A scripted replay of a task with MCP servers and `output_schema`: its calls to `mcp__S__T` tools
 * and to `submit_result` are the task's tools too (checked when called, not refused up front as
 * tools the task does not offer), through the built CLI.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { NODE, STDIO_SERVER, yamlString } from "./helpers/mcp.ts";

test("a replay calls an MCP tool and submits the result", { timeout: 60_000 }, async () => {
  const dir = await tempWorkspace();
  await writeFile(
    path.join(dir, "task.yml"),
    `name: replay-mcp
model: anthropic:claude-haiku-4-5
prompt: Use the server, then submit.
tools: [read]
sandbox: off
mcp_servers:
  files:
    command: ${yamlString(NODE)}
    args: [${yamlString(STDIO_SERVER)}]
output_schema: { type: object, properties: { sum: { type: integer } }, required: [sum] }
`,
  );
  await writeFile(
    path.join(dir, "session.yml"),
    `turns:
  - tool_calls:
      - { name: mcp__files__add, arguments: { a: 2, b: 3 } }
  - tool_calls:
      - { name: submit_result, arguments: { sum: 5 } }
`,
  );
  const validate = await runCli(["validate", "task.yml", "--replay", "session.yml"], { cwd: dir });
  expect(validate.code, validate.stderr).toBe(0);
  const run = await runCli(["task.yml", "--replay", "session.yml"], { cwd: dir });
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.parse(await readFile(path.join(dir, ".agent-run", "result.json"), "utf8"))).toEqual({ sum: 5 });
  const events = await readFile(path.join(dir, ".agent-run", "events.jsonl"), "utf8");
  expect(events).toContain('"text":"5"');
});
