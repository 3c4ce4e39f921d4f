/**
 * `mcp_servers`, `output_schema` and MCP tool patterns in hooks, checked by `agent-run validate`
 * (the built CLI): every mistake is a positioned problem, in the task file or in the schema's own
 * .json file, with what was expected; a valid spec is described without a credential's value.
 */
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";

const HEAD = "name: t\nmodel: anthropic:claude-haiku-4-5\nprompt: x\n";

async function validate(yaml: string, files: Record<string, string> = {}) {
  const dir = await tempWorkspace({ "task.yml": HEAD + yaml, ...files });
  return { dir, ...(await runCli(["validate", "task.yml"], { cwd: dir })) };
}

describe("mcp_servers problems are positioned", () => {
  test.for([
    {
      yaml: "mcp_servers:\n  git__hub:\n    url: http://127.0.0.1:9/mcp\n",
      problem:
        "task.yml:5:3 mcp_servers.git__hub: bad server name 'git__hub' (expected letters and digits with single - or _ between them (__ separates the parts of mcp__SERVER__TOOL))",
    },
    {
      yaml: "mcp_servers:\n  both:\n    command: node\n    url: http://x/mcp\n",
      problem:
        "task.yml:6:5 mcp_servers.both: a server has either `command` (stdio) or `url` (streamable HTTP)",
    },
    {
      yaml: "mcp_servers:\n  web:\n    url: ftp://x\n",
      problem: "task.yml:6:10 mcp_servers.web.url: bad URL 'ftp://x' (expected an http:// or https:// URL)",
    },
    {
      yaml: "mcp_servers:\n  web:\n    url: http://x/mcp\n    env: { A: b }\n",
      problem: "task.yml:7:5 mcp_servers.web.env: 'env' is only for stdio servers (with `command`)",
    },
    {
      yaml: "mcp_servers:\n  files:\n    command: node\n    headers: { Authorization: x }\n",
      problem: "task.yml:7:5 mcp_servers.files.headers: 'headers' is only for HTTP servers (with `url`)",
    },
    {
      yaml: "mcp_servers:\n  files:\n    command: node\n    timeout: 2 minutes\n",
      problem: "task.yml:7:14 mcp_servers.files.timeout: bad duration '2 minutes'",
    },
    {
      yaml: 'mcp_servers:\n  files:\n    command: node\n    args: ["{{ vars.nope }}"]\n',
      problem: "task.yml:7:13 mcp_servers.files.args[0]: undefined variable 'vars.nope'",
    },
    {
      yaml: "mcp_servers:\n  files:\n    command: node\n    tools: [a, a]\n",
      problem: "task.yml:7:16 mcp_servers.files.tools[1]: tool 'a' is listed twice (first at tools[0])",
    },
    {
      yaml: "hooks:\n  before_tool_call:\n    - match: { tool: bsh }\n      block: no\n",
      problem:
        "task.yml:6:22 hooks.before_tool_call[0].match.tool: unknown tool 'bsh' (expected one of bash, read, write, edit, grep, find, ls, or an MCP tool mcp__SERVER__TOOL (* and ? allowed)) — did you mean 'bash'?",
    },
    {
      yaml: "hooks:\n  after_tool_call:\n    - match: { tool: [read, mcp__web__x] }\n      run: echo\n",
      problem:
        "task.yml:6:29 hooks.after_tool_call[0].match.tool[1]: no MCP server 'web' in mcp_servers (expected a server configured under mcp_servers)",
    },
  ])("$problem", async ({ yaml, problem }) => {
    const run = await validate(yaml);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(problem);
  });
});

describe("output_schema problems are positioned", () => {
  test("inline: at the field inside the schema", async () => {
    const run = await validate(
      "output_schema:\n  type: object\n  properties:\n    verdict: { type: strin }\n",
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'task.yml:7:22 output_schema.properties.verdict.type: not a valid JSON Schema: must be one of "array", "boolean", "integer", "null", "number", "object", "string"',
    );
  });

  test("inline: an unknown keyword, an unknown format and a $ref to nowhere", async () => {
    for (const [yaml, problem] of [
      [
        "  type: object\n  proprties: {}\n",
        'task.yml:6:3 output_schema.proprties: unknown keyword "proprties"',
      ],
      ["  type: string\n  format: emial\n", 'task.yml:6:11 output_schema.format: unknown format "emial"'],
      [
        "  $ref: '#/$defs/none'\n",
        'task.yml:5:9 output_schema.$ref: $ref "#/$defs/none" points nowhere in the schema',
      ],
    ] as const) {
      const run = await validate(`output_schema:\n${yaml}`);
      expect(run.code, yaml).toBe(2);
      expect(run.stderr).toContain(problem);
    }
  });

  test("a file: its JSON errors and schema errors are positioned in it", async () => {
    const bad = await validate("output_schema: schemas/result.json\n", {});
    expect(bad.stderr).toContain(
      "task.yml:4:16 output_schema: the schema file schemas/result.json does not exist (expected a .json file, relative to the task file)",
    );
    const dir = bad.dir;
    await mkdir(path.join(dir, "schemas"));
    const file = path.join(dir, "schemas", "result.json");
    await writeFile(file, '{\n  "type": "object",\n  "properties": { "a": { "type": "strin" } }\n}\n');
    const invalid = await runCli(["validate", "task.yml"], { cwd: dir });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(
      `${path.join("schemas", "result.json")}:3:34 properties.a.type: not a valid JSON Schema`,
    );
    await writeFile(file, '{\n  "type": "object",\n}\n');
    const notJson = await runCli(["validate", "task.yml"], { cwd: dir });
    expect(notJson.stderr).toContain(
      `${path.join("schemas", "result.json")}:3:1 not valid JSON: Expected double-quoted property name`,
    );
    await writeFile(file, '{ "type": "object", "type": "array" }\n');
    const twice = await runCli(["validate", "task.yml"], { cwd: dir });
    expect(twice.stderr).toContain(
      `${path.join("schemas", "result.json")}:1:21 duplicate key 'type' (first at line 1)`,
    );
  });

  test("a FIFO as the schema file is refused at once", async () => {
    const { dir } = await validate("");
    execFileSync("mkfifo", [path.join(dir, "fifo.json")]);
    await writeFile(path.join(dir, "task.yml"), `${HEAD}output_schema: fifo.json\n`);
    const run = await runCli(["validate", "task.yml"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("the schema file fifo.json is a FIFO (named pipe), not a regular file");
  });
});

test("a valid spec is described: servers as written (no credential), the result line", async () => {
  const run = await validate(
    'tools: [read]\nmcp_servers:\n  web:\n    url: "https://mcp.example.com/{{ env.HOME }}"\n    headers: { Authorization: "Bearer {{ env.HOME }}" }\n    tools: [search]\noutput_schema: { type: object }\n',
  );
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(
    "  web  http: https://mcp.example.com/{{ env.HOME }} · headers Authorization · tools search · timeout 2m",
  );
  expect(run.stdout).toContain(
    "result     submit_result, checked against output_schema (inline); written to result.json",
  );
  expect(run.stdout).not.toContain(process.env.HOME ?? "/root");
});
