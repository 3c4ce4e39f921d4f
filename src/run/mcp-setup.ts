/**
 * The prepare phase's part for `mcp_servers`: each server's secrets go to the redactor before
 * anything can print them, then every server is started (stdio ones in the run's sandbox, see
 * sandbox-setup.ts) and its tools listed. The MCP code loads only for tasks that have servers.
 */
import path from "node:path";
import type { StartedMcpServers } from "../mcp/index.ts";
import type { Redactor } from "../output/index.ts";
import type { McpStdioServerSpec, TaskSpec } from "../spec/index.ts";
import { scrubEnv } from "../system/env.ts";
import { checkHookToolNames } from "./mcp-hook-names.ts";
import { agentEnv, type RunSandbox } from "./sandbox-setup.ts";

export interface StartTaskMcpInput {
  spec: TaskSpec;
  workspace: string;
  /** The runner's environment. */
  env: NodeJS.ProcessEnv;
  sandbox: RunSandbox;
  redactor: Redactor;
  /** Tool names in use (the spec's and the runner's); receives the MCP tools'. */
  taken: Set<string>;
}

/**
 * Starts the task's MCP servers; undefined when it has none. Throws the `AgentRunError` of
 * `startMcpServers` (exit 2, nothing run) when one cannot start, lacks a listed tool or cannot
 * list its tools (its message redacted), or of `checkHookToolNames` when a hook rule names a tool
 * no server has (the servers stopped first).
 */
export async function startTaskMcpServers(input: StartTaskMcpInput): Promise<StartedMcpServers | undefined> {
  const { spec, workspace, sandbox, redactor } = input;
  if (spec.mcpServers.length === 0) return undefined;
  for (const server of spec.mcpServers) for (const secret of server.secrets) redactor.add(secret);
  const { startMcpServers } = await import("../mcp/index.ts");
  // Unsandboxed, a server starts from the environment bash gets: no credential but its own `env`.
  const base = sandbox.state === "sandboxed" ? input.env : scrubEnv(agentEnv(input.env)).env;
  const started = await startMcpServers(spec.mcpServers, {
    command: (server: McpStdioServerSpec) => {
      const command = {
        file: server.command.includes("/") ? path.resolve(workspace, server.command) : server.command,
        args: server.args,
        cwd: path.resolve(workspace, server.cwd ?? "."),
        env: withoutUndefined({ ...base, ...server.env }),
      };
      return (
        sandbox.wrapServerCommand?.(command, {
          network: server.network,
          passThrough: Object.keys(server.env),
        }) ?? command
      );
    },
    taken: input.taken,
    redact: (text) => redactor.redact(text),
  });
  try {
    checkHookToolNames(spec, started);
  } catch (error) {
    await started.close();
    throw error;
  }
  return started;
}

function withoutUndefined(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}
