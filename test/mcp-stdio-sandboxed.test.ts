/**
 * A stdio MCP server runs in a bubblewrap of its own when the sandbox is on: it writes in the
 * workspace and nowhere else on the host, has no network unless its `network: true`, and never
 * sees the runner's credentials. Sandboxed or not, the server's whole process tree is gone when
 * the run ends.
 */

import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ROOT, tempWorkspace } from "./helpers/cli.ts";
import { endsById, NODE, runMcpTask, STDIO_SERVER, textOf, yamlString } from "./helpers/mcp.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";

let web: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (web ? web.close(() => resolve()) : resolve()));
  web = undefined;
});

const task = (sandbox: string, network: boolean) => `name: mcp-sandbox
model: anthropic:claude-haiku-4-5
prompt: Use the server.
tools: [read]
sandbox: ${sandbox}
mcp_servers:
  files:
    command: ${yamlString(NODE)}
    args: [${yamlString(STDIO_SERVER)}]
    network: ${network}
`;

/** Processes whose command line holds `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(marker)) found.push(Number(entry));
  }
  return found;
}

async function startWeb(): Promise<string> {
  web = createServer((_req, res) => res.writeHead(200).end("ok"));
  await new Promise<void>((resolve) => web?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(web.address() as AddressInfo).port}/`;
}

describe.skipIf(NO_SANDBOX)("a sandboxed stdio MCP server", { timeout: 60_000 }, () => {
  test("writes in the workspace only, has no network, sees no runner credential, leaves no process", async () => {
    const dir = await tempWorkspace();
    const outside = await mkdtemp(path.join(ROOT, "node_modules", ".cache", "mcp-outside-"));
    const url = await startWeb();
    const marker = `mcp-marker-${randomBytes(4).toString("hex")}`;
    try {
      const run = await runMcpTask(
        dir,
        task("required", false),
        [
          {
            toolCalls: [
              {
                id: "in",
                name: "mcp__files__write_file",
                arguments: { path: path.join(dir, "made.txt"), text: "inside\n" },
              },
              {
                id: "out",
                name: "mcp__files__write_file",
                arguments: { path: path.join(outside, "escaped.txt"), text: "x" },
              },
              { id: "net", name: "mcp__files__http_get", arguments: { url } },
              { id: "key", name: "mcp__files__env", arguments: { name: "RUNNER_DEPLOY_TOKEN" } },
              { id: "bg", name: "mcp__files__spawn_sleeper", arguments: { marker } },
            ],
          },
          { text: "Done." },
        ],
        { env: { RUNNER_DEPLOY_TOKEN: "deploy-token-value-1234" } },
      );
      expect(run.code, run.stderr).toBe(0);
      const ends = endsById(run.events);
      expect(textOf(ends.get("in"))).toContain("wrote");
      expect(await readFile(path.join(dir, "made.txt"), "utf8")).toBe("inside\n");
      expect(await readFile(path.join(run.outDir, "patch.diff"), "utf8")).toContain("+inside");
      expect(ends.get("out")?.isError).toBe(true);
      expect(textOf(ends.get("out"))).toMatch(/EROFS|read-only/);
      expect(await readdir(outside)).toEqual([]);
      expect(ends.get("net")?.isError).toBe(true);
      expect(textOf(ends.get("net"))).toContain("network error");
      expect(textOf(ends.get("key"))).toBe("RUNNER_DEPLOY_TOKEN=(unset)");
      expect(textOf(ends.get("bg"))).toContain("started");
      expect(await processesWith(marker)).toEqual([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test("with network: true it reaches the network", async () => {
    const dir = await tempWorkspace();
    const url = await startWeb();
    const run = await runMcpTask(dir, task("required", true), [
      { toolCalls: [{ id: "net", name: "mcp__files__http_get", arguments: { url } }] },
      { text: "Done." },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(textOf(endsById(run.events).get("net"))).toBe("status 200");
  });
});

describe("an unsandboxed stdio MCP server", { timeout: 60_000 }, () => {
  test("gets no runner credential and leaves no process behind", async () => {
    const dir = await tempWorkspace();
    await mkdir(path.join(dir, "sub"));
    const marker = `mcp-marker-${randomBytes(4).toString("hex")}`;
    const run = await runMcpTask(
      dir,
      task("off", false),
      [
        {
          toolCalls: [
            { id: "key", name: "mcp__files__env", arguments: { name: "RUNNER_DEPLOY_TOKEN" } },
            { id: "bg", name: "mcp__files__spawn_sleeper", arguments: { marker } },
          ],
        },
        { text: "Done." },
      ],
      { env: { RUNNER_DEPLOY_TOKEN: "deploy-token-value-1234" } },
    );
    expect(run.code, run.stderr).toBe(0);
    const ends = endsById(run.events);
    expect(textOf(ends.get("key"))).toBe("RUNNER_DEPLOY_TOKEN=(unset)");
    expect(textOf(ends.get("bg"))).toContain("started");
    expect(await processesWith(marker)).toEqual([]);
  });
});
