/**
 * Running the built CLI on a task with MCP servers against the mock LLM: the test stdio server
 * (test/mcp/stdio-server.ts, run by this Node) and wire-format cases.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { type MockLlm, type MockScript, type RecordedRequest, startMockLlm } from "../mock-llm/server.ts";
import { type CliResult, ROOT, runCli } from "./cli.ts";
import { type EventLine, readRunOutputs } from "./scripted-cli.ts";

/** The test stdio server and the Node (24) that runs it, absolute: the machine's `node` is older. */
export const STDIO_SERVER = path.join(ROOT, "test", "mcp", "stdio-server.ts");
export const NODE = process.execPath;

/** The three wire formats, as a spec's `model:` line and the request field holding the tools. */
export const WIRE_FORMATS = [
  { name: "anthropic", model: "anthropic:claude-haiku-4-5" },
  { name: "responses", model: "openai:gpt-5-mini" },
  { name: "chat", model: "{ provider: openai, id: gpt-5-mini, api: chat }" },
] as const;

/** A YAML flow string: JSON is YAML. */
export const yamlString = (text: string) => JSON.stringify(text);

/** The tools a request offered: name → parameters schema, whatever the wire format. */
export function offeredTools(request: RecordedRequest | undefined): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const tool of (request?.body.tools ?? []) as Record<string, unknown>[]) {
    if (request?.format === "anthropic")
      out[String(tool.name)] = tool.input_schema as Record<string, unknown>;
    else if (request?.format === "responses")
      out[String(tool.name)] = tool.parameters as Record<string, unknown>;
    else {
      const fn = tool.function as Record<string, unknown>;
      out[String(fn.name)] = fn.parameters as Record<string, unknown>;
    }
  }
  return out;
}

export interface McpCliRun extends CliResult {
  llm: MockLlm;
  outDir: string;
  events: EventLine[];
  usage: Record<string, unknown>;
  summary: string;
}

/** Runs `task.yml` (written into `dir`) with the built CLI against a mock LLM serving `script`. */
export async function runMcpTask(
  dir: string,
  taskYaml: string,
  script: MockScript,
  options: { env?: NodeJS.ProcessEnv; args?: string[] } = {},
): Promise<McpCliRun> {
  await writeFile(path.join(dir, "task.yml"), taskYaml);
  const llm = await startMockLlm({ script });
  try {
    const result = await runCli(["task.yml", ...(options.args ?? [])], {
      cwd: dir,
      env: {
        ANTHROPIC_BASE_URL: llm.url,
        ANTHROPIC_API_KEY: "test-anthropic-key",
        OPENAI_BASE_URL: `${llm.url}/v1`,
        OPENAI_API_KEY: "test-openai-key",
        ...options.env,
      },
    });
    return { ...result, llm, ...(await readRunOutputs(dir)) };
  } finally {
    await llm.close();
  }
}

/** The `tool_execution_end` events by tool call id. */
export function endsById(events: EventLine[]): Map<string, EventLine> {
  return new Map(
    events.filter((e) => e.type === "tool_execution_end").map((e) => [String(e.toolCallId), e] as const),
  );
}

/** The text of a tool result event. */
export function textOf(event: EventLine | undefined): string {
  return (event?.result?.content ?? []).map((part) => part.text ?? "").join("");
}
