/**
 * One MCP server for the length of a run, through the official SDK's `Client`: started (stdio) or
 * reached (streamable HTTP), initialised and its tools listed by `openConnection`, called by
 * `call`, stopped by `close`. A stdio server that dies is not restarted: `down` says why from
 * then on, and every later call fails with that reason at once.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { errorText } from "../core/errors.ts";
import type { JsonSchema } from "../core/types.ts";
import { formatSpecDuration } from "../spec/duration.ts";
import type { McpServerSpec } from "../spec/types.ts";
import { isTimerDelay, MAX_TIMER_MS } from "../system/timer.ts";
import { VERSION } from "../version.ts";
import type { McpCallResult } from "./call-result.ts";
import { ProcessTransport, type ServerCommand } from "./stdio-transport.ts";

const NOT_RESTARTED = "it is not restarted, so its tools cannot be called for the rest of the run";

/** Tools listed of one server at most: 1000 (pages are read until then). */
export const MAX_SERVER_TOOLS = 1000;

/** A tool as the server lists it. */
export interface ServerTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** Why a server could not be used; `stderr` is the last line it wrote there (stdio), if any. */
export class McpStartFailure extends Error {
  readonly stderr: string;

  constructor(message: string, stderr: string) {
    super(message);
    this.name = "McpStartFailure";
    this.stderr = stderr;
  }
}

export interface McpConnection {
  readonly spec: McpServerSpec;
  readonly tools: readonly ServerTool[];
  /** Why the server cannot be called any more (it exited); undefined while it can. */
  readonly down: string | undefined;
  /** Calls a tool by its own name. Rejects with the reason, written for the model, on any failure. */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult>;
  /** Stops the server (stdio: its whole process group) or ends the HTTP session. Never rejects. */
  close(): Promise<void>;
}

/**
 * Starts or reaches the server, initialises the session and lists its tools, within the spec's
 * `start_timeout`. `command` is how to run a stdio server (the sandbox's wrapping applied); unused
 * for HTTP. Rejects with `McpStartFailure`.
 */
export async function openConnection(spec: McpServerSpec, command?: ServerCommand): Promise<McpConnection> {
  const transport: ProcessTransport | StreamableHTTPClientTransport =
    spec.transport === "stdio"
      ? new ProcessTransport(command ?? { file: spec.command, args: spec.args, cwd: ".", env: spec.env })
      : new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers } });
  const stdio = transport instanceof ProcessTransport ? transport : undefined;
  const client = new Client({ name: "agent-run", version: VERSION }, { capabilities: {} });
  // The SDK reports stray output (a log line on stdout) here; the calls in flight carry their own.
  client.onerror = () => {};
  let closing = false;
  let down: string | undefined;
  client.onclose = () => {
    if (!closing) down = stdio ? endedText(stdio) : "the connection to the server closed";
  };
  const startMs = timerMs(spec.startTimeoutMs);
  const deadline = AbortSignal.timeout(startMs);
  const fail = async (error: unknown): Promise<never> => {
    closing = true;
    await client.close().catch(() => {});
    await stdio?.close();
    const why = deadline.aborted
      ? `did not answer within ${formatSpecDuration(spec.startTimeoutMs)} (start_timeout)`
      : stdio?.exit
        ? endedText(stdio, false)
        : startErrorText(error, spec);
    throw new McpStartFailure(why, stdio?.lastStderrLine() ?? "");
  };

  let tools: ServerTool[];
  try {
    await client.connect(transport as Transport, { signal: deadline, timeout: startMs });
    tools = await listAllTools(client, deadline, startMs);
  } catch (error) {
    return fail(error);
  }

  return {
    spec,
    tools,
    get down() {
      return down;
    },
    async call(tool, args, signal) {
      if (down !== undefined) throw new Error(`${down}; ${NOT_RESTARTED}`);
      try {
        const result = await client.callTool({ name: tool, arguments: args }, undefined, {
          signal,
          timeout: timerMs(spec.timeoutMs),
        });
        return result as McpCallResult;
      } catch (error) {
        throw new Error(callErrorText(error, spec, down, signal));
      }
    },
    async close() {
      closing = true;
      if (transport instanceof StreamableHTTPClientTransport) {
        // Ends the server's session where it supports that (DELETE); refused or not, we are done.
        await transport.terminateSession().catch(() => {});
      }
      await client.close().catch(() => {});
      await stdio?.close();
    },
  };
}

/**
 * A timeout as a timer can hold it: one too long for `setTimeout` (or not positive) would fire at
 * once, so it becomes the longest a timer holds (~24.8 days), as good as none.
 */
function timerMs(ms: number): number {
  return isTimerDelay(ms) ? ms : MAX_TIMER_MS;
}

async function listAllTools(client: Client, signal: AbortSignal, timeout: number): Promise<ServerTool[]> {
  const tools: ServerTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { signal, timeout });
    for (const tool of page.tools) {
      tools.push({
        name: tool.name,
        description: tool.description ?? tool.title ?? "",
        inputSchema: tool.inputSchema as JsonSchema,
      });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined && tools.length < MAX_SERVER_TOOLS);
  return tools.slice(0, MAX_SERVER_TOOLS);
}

/** "exited with code 1", "was killed by SIGKILL", with its last stderr line unless `withStderr` is false. */
function endedText(stdio: ProcessTransport, withStderr = true): string {
  const exit = stdio.exit;
  const how =
    exit === undefined
      ? "closed its output"
      : exit.signal
        ? `was killed by ${exit.signal}`
        : `exited with code ${exit.exitCode}`;
  const line = withStderr ? stdio.lastStderrLine() : "";
  return `the server ${how}${line ? ` (its last stderr line: ${JSON.stringify(line)})` : ""}`;
}

function startErrorText(error: unknown, spec: McpServerSpec): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (spec.transport === "stdio" && code === "ENOENT") return `program '${spec.command}' not found`;
  if (spec.transport === "stdio" && code === "EACCES") return `program '${spec.command}' is not executable`;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  const text = errorText(error);
  return cause !== undefined && text === "fetch failed" ? `${text}: ${errorText(cause)}` : text;
}

function callErrorText(
  error: unknown,
  spec: McpServerSpec,
  down: string | undefined,
  signal: AbortSignal,
): string {
  if (signal.aborted) return "the call was aborted";
  if (down !== undefined)
    return `${down}; it is not restarted, so its tools cannot be called for the rest of the run`;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return `the server did not answer within ${formatSpecDuration(spec.timeoutMs)} (timeout)`;
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return "the connection to the server closed during the call";
  }
  const cause = (error as { cause?: unknown }).cause;
  const text = errorText(error);
  return cause !== undefined && text === "fetch failed" ? `${text}: ${errorText(cause)}` : text;
}
