/**
 * Credentials in an MCP server's configuration reach the server and nothing else. Canaries in a
 * stdio server's `env` (under a credential-like name, from a harmless-looking variable), in its
 * `args` (from a credential-like variable) and in an HTTP server's `Authorization` header: the
 * servers get them (the model even has them echoed back by a tool), yet no request to the model,
 * no output file, no terminal line and no `validate` listing holds one, in any encoding.
 */
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { canary, filesUnder, findCanaries } from "./helpers/canaries.ts";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { endsById, NODE, runMcpTask, STDIO_SERVER, textOf, yamlString } from "./helpers/mcp.ts";
import { startHttpMcp, type TestHttpMcp } from "./mcp/http-server.ts";

let http: TestHttpMcp | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

const C = {
  env: canary("mcp-env"),
  arg: canary("mcp-arg"),
  header: canary("mcp-header"),
};

describe("MCP server credentials stay between the runner and the server", { timeout: 90_000 }, () => {
  test.for(["auto", "off"] as const)("sandbox: %s", async (sandbox) => {
    http = await startHttpMcp();
    const dir = await tempWorkspace();
    const yaml = `name: mcp-secrets
model: anthropic:claude-haiku-4-5
prompt: Use the servers.
tools: [read]
sandbox: ${sandbox}
mcp_servers:
  files:
    command: ${yamlString(NODE)}
    args: [${yamlString(STDIO_SERVER)}, "--token={{ env.FILES_ARG_TOKEN }}", "--label={{ vars.label }}"]
    env:
      FILES_API_TOKEN: "{{ env.UPSTREAM_VALUE }}"
  web:
    url: ${http.url}
    headers:
      Authorization: "Bearer {{ env.WEB_MCP_KEY }}"
`;
    const env = { UPSTREAM_VALUE: C.env, FILES_ARG_TOKEN: C.arg, WEB_MCP_KEY: C.header };
    const run = await runMcpTask(
      dir,
      yaml,
      [
        {
          toolCalls: [
            { id: "c1", name: "mcp__files__env", arguments: { name: "FILES_API_TOKEN" } },
            { id: "c2", name: "mcp__files__argv", arguments: {} },
            { id: "c3", name: "mcp__web__echo", arguments: { text: "hello" } },
          ],
        },
        { text: "Done." },
      ],
      { env, args: ["--var", "label=plain-label"] },
    );
    expect(run.code, run.stderr).toBe(0);
    // The servers got the values.
    expect(http.headers.some((h) => h.authorization === `Bearer ${C.header}`)).toBe(true);
    const ends = endsById(run.events);
    expect(textOf(ends.get("c1"))).toBe("FILES_API_TOKEN=***");
    expect(textOf(ends.get("c2"))).toContain("--token=***");
    // A value from vars (not credential-like) reaches the server and may be shown.
    expect(textOf(ends.get("c2"))).toContain("--label=plain-label");
    expect(textOf(ends.get("c3"))).toBe("echo: hello");

    const validate = await runCli(["validate", "task.yml", "--mcp", "--var", "label=plain-label"], {
      cwd: dir,
      env,
    });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain("env FILES_API_TOKEN");
    expect(validate.stdout).toContain("mcp__web__echo");
    const texts: Record<string, string> = {
      stdout: run.stdout,
      stderr: run.stderr,
      "requests to the model": JSON.stringify(run.llm.requests.map((r) => r.body)),
      "validate stdout": validate.stdout,
      "validate stderr": validate.stderr,
    };
    for (const [file, text] of Object.entries(await filesUnder(path.join(dir, ".agent-run")))) {
      texts[`.agent-run/${file}`] = text;
    }
    expect(findCanaries(Object.values(C), texts)).toEqual([]);
  });
});
