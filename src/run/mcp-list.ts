/**
 * `agent-run validate --mcp`: the task's MCP servers started as a run would start them (stdio ones
 * in the sandbox its spec asks for) and their tools listed with the names the model would call,
 * then stopped. No model call, nothing written.
 */
import path from "node:path";
import { createRedactor } from "../output/index.ts";
import type { LoadedTask } from "../spec/index.ts";
import { protectedPaths } from "./build-tools.ts";
import { GIVE_UP_TOOL } from "./give-up-tool.ts";
import { startTaskMcpServers } from "./mcp-setup.ts";
import { SUBMIT_RESULT_TOOL } from "./result-state.ts";
import { setupSandbox } from "./sandbox-setup.ts";

export interface ListMcpToolsOptions {
  env?: NodeJS.ProcessEnv;
  /** The workspace, when it is not the spec's workdir. */
  workspace?: string;
}

/**
 * The listing, one server a block: each tool's offered name and description's first line, and the
 * tools its `tools:` leaves out. Throws what the run's prepare phase would (exit 2) when a server
 * cannot start or lacks a listed tool.
 */
export async function listMcpTools(task: LoadedTask, options: ListMcpToolsOptions = {}): Promise<string> {
  const { spec } = task;
  if (spec.mcpServers.length === 0) return "mcp tools   none (no mcp_servers)";
  const env = options.env ?? process.env;
  const workspace = options.workspace ?? path.resolve(task.dir, spec.workdir);
  const outDir = path.resolve(workspace, spec.outputs.dir);
  const sandbox = await setupSandbox({
    spec,
    workspace,
    protectedGlobs: protectedPaths(task, workspace, outDir, spec.protect),
    env,
    trusted: true,
  });
  const redactor = createRedactor({ env });
  try {
    const started = await startTaskMcpServers({
      spec,
      workspace,
      env,
      sandbox,
      redactor,
      taken: new Set([...spec.tools.map((tool) => tool.name), GIVE_UP_TOOL, SUBMIT_RESULT_TOOL]),
    });
    if (!started) return "";
    await started.close();
    const lines = [
      `mcp tools (started: ${sandbox.state === "sandboxed" ? "stdio servers sandboxed" : `sandbox ${sandbox.state}`})`,
    ];
    for (const { spec: server, listed } of started.servers) {
      const offered = started.entries.filter((entry) => entry.server === server.name);
      const descriptions = new Map(started.tools.map((tool) => [tool.name, tool.description]));
      lines.push(`  ${server.name}: ${offered.length} of ${listed.length} tools offered`);
      const width = Math.max(0, ...offered.map((entry) => entry.name.length));
      for (const entry of offered) {
        const first = (descriptions.get(entry.name) ?? "").split("\n", 1)[0] ?? "";
        const own = entry.name === `mcp__${server.name}__${entry.tool}` ? "" : ` (${entry.tool})`;
        lines.push(
          `    ${entry.name.padEnd(width)}  ${first.length > 80 ? `${first.slice(0, 79)}…` : first}${own}`,
        );
      }
      const left = listed.filter((name) => !offered.some((entry) => entry.tool === name));
      if (left.length > 0) lines.push(`    not offered (tools:): ${left.join(", ")}`);
    }
    return redactor.redact(lines.join("\n"));
  } finally {
    await sandbox.dispose();
  }
}
