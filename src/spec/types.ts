import type { Model, ThinkingLevel, ToolExecutionMode } from "../core/types.ts";
import type { ResourceCaps } from "../system/caps.ts";
import type { KnownToolName } from "./schema.ts";
import type { TemplatePart } from "./template.ts";

/** Options of one tool, camelCased from the spec; each tool reads the ones it knows. */
export interface ToolOptions {
  /** bash: only commands matching one of these globs run. */
  allow?: string[];
  /** bash: commands matching one of these globs are refused. */
  deny?: string[];
  /** bash: per-command timeout in milliseconds. */
  timeoutMs?: number;
  /** bash: environment variables passed through despite looking like secrets. */
  env?: string[];
  /** Lines / bytes of output the model sees before the middle is elided. */
  maxOutputLines?: number;
  maxOutputBytes?: number;
  /** write/edit: extra globs the tool may not change. */
  protect?: string[];
}

export interface ToolSpec {
  name: KnownToolName;
  options: ToolOptions;
}

/**
 * A hook command after loading: `{{ vars.X }}` and `{{ env.X }}` are already substituted (shell
 * quoted); only `{{ tool.* }}` references remain in `parts`, filled per call.
 */
export interface CommandTemplate {
  /** For display: the command with vars/env substituted and tool references as written. */
  text: string;
  parts: TemplatePart[];
}

/** Which calls a rule applies to; every given field must match. */
export interface HookMatch {
  /** Built-in tool names, and MCP tool names or globs (`mcp__github__*`). */
  tools?: string[];
  /** picomatch glob against the call's `path` argument, relative to the workspace. */
  path?: string;
  /** Glob against bash's `command`, where `*` matches any text. */
  command?: string;
}

export interface BeforeToolCallRule {
  /** Position in the spec's list, 0-based. */
  index: number;
  match?: HookMatch;
  /** Declarative rule: block matching calls with this reason. */
  block?: string;
  /** Command hook. */
  run?: CommandTemplate;
  timeoutMs: number;
}

export interface AfterToolCallRule {
  index: number;
  match?: HookMatch;
  run: CommandTemplate;
  timeoutMs: number;
}

export interface PrepareNextTurnRule {
  index: number;
  /** Every given condition must hold. */
  when: { turnGte?: number; costGteUsd?: number };
  model?: Model;
  thinking?: ThinkingLevel;
}

export interface BeforeStopRule {
  index: number;
  run: CommandTemplate;
  maxAttempts: number;
  timeoutMs: number;
}

export interface TaskLimits {
  maxTurns?: number;
  maxCostUsd?: number;
  maxTokens?: number;
  /** Whole-run timeout in milliseconds. */
  timeoutMs?: number;
  /** Fraction of a limit at which the model is told to wrap up; undefined: never. Default 0.8. */
  windDownAt?: number;
}

/** How the conversation is kept within the context window (see run/compaction). */
export interface CompactionSpec {
  /** False with `compaction: false`: the conversation is never compacted. */
  enabled: boolean;
  /** Fraction of the window at which a request is compacted. Default 0.85. */
  threshold: number;
  /** Fraction of the window a compaction brings the request down to. Default 0.4. */
  target: number;
}

/** What every MCP server entry has, whatever its transport. */
interface McpServerCommon {
  /** The key in `mcp_servers`. */
  name: string;
  /** Only these of the server's tools are offered (its own names); undefined: all. */
  tools?: string[];
  /** Per tool call, in milliseconds. Default 120 s. */
  timeoutMs: number;
  /** To start the server and list its tools, in milliseconds. Default 60 s. */
  startTimeoutMs: number;
  /**
   * Values that reach the server but must reach neither the model nor any output: those taken from
   * credential-like variables, and every value of a credential-like `env` name or header.
   */
  secrets: string[];
}

/** An MCP server the runner starts and talks to over its stdin and stdout. */
export interface McpStdioServerSpec extends McpServerCommon {
  transport: "stdio";
  command: string;
  /** Templates substituted. */
  args: string[];
  /** Templates substituted. */
  env: Record<string, string>;
  /** As written, relative to the workspace; undefined: the workspace. */
  cwd?: string;
  /** Whether the server may use the network inside the sandbox. Default false. */
  network: boolean;
  /** `command args…` as written, templates unsubstituted: safe to print. */
  display: string;
}

/** An MCP server reached over streamable HTTP. */
export interface McpHttpServerSpec extends McpServerCommon {
  transport: "http";
  /** Templates substituted. */
  url: string;
  /** Templates substituted. */
  headers: Record<string, string>;
  /** The URL as written, templates unsubstituted: safe to print. */
  display: string;
}

export type McpServerSpec = McpStdioServerSpec | McpHttpServerSpec;

/** The spec's `output_schema`: the structured result the model submits with `submit_result`. */
export interface OutputSchemaSpec {
  /** The JSON Schema as given. */
  schema: Record<string, unknown>;
  /** Absolute path of the .json file it was read from; undefined when inline. */
  file?: string;
}

/** The normalised task: defaults applied, durations in ms, templates resolved. */
export interface TaskSpec {
  name: string;
  model: Model;
  /** From the object form's `thinking`; undefined means the runner's default ("off"). */
  thinking?: ThinkingLevel;
  /** Templated; undefined means the runner's built-in headless default. */
  system?: string;
  /** Templated, never empty. */
  prompt: string;
  /** Spec vars merged with overrides, all strings. */
  vars: Record<string, string>;
  /** The workspace root as written, relative to the task file's directory. Default ".". */
  workdir: string;
  tools: ToolSpec[];
  /** Default "parallel". */
  execution: ToolExecutionMode;
  /** Default "auto": bash and command hooks in bubblewrap, unsandboxed only for trusted triggers. */
  sandbox: "required" | "auto" | "off";
  /** Whether sandboxed commands may use the network. Default false. */
  sandboxNetwork: boolean;
  /** Extra protected globs for every tool (and read-only in the sandbox). Default []. */
  protect: string[];
  limits: TaskLimits;
  compaction: CompactionSpec;
  /** The spec's `caps`, every one filled in (defaults: `DEFAULT_CAPS`, docs/security.md). */
  caps: ResourceCaps;
  hooks: {
    beforeToolCall: BeforeToolCallRule[];
    afterToolCall: AfterToolCallRule[];
    prepareNextTurn: PrepareNextTurnRule[];
    beforeStop: BeforeStopRule[];
  };
  /** `dir` as written, relative to the workspace. Default ".agent-run". */
  outputs: { dir: string };
  /** The spec's `review`: `add_review_comment` offered when `inline`. Default: off, 20 comments. */
  review: ReviewSpec;
  /** The spec's `mcp_servers`, in the order written. Default []. */
  mcpServers: McpServerSpec[];
  /** The spec's `output_schema`, if any. */
  outputSchema?: OutputSchemaSpec;
}

/** The spec's `review`, defaults filled in. */
export interface ReviewSpec {
  /** Offer the `add_review_comment` tool. Default false. */
  inline: boolean;
  /** Calls accepted per run. Default `DEFAULT_REVIEW_MAX_COMMENTS`. */
  maxComments: number;
}

/** Default `review.max_comments`: 20. */
export const DEFAULT_REVIEW_MAX_COMMENTS = 20;

/** A loaded task: where it came from and its normalised spec. */
export interface LoadedTask {
  /** Absolute path of the task file ("" for an inline task built from flags). */
  file: string;
  /** The directory relative paths in the spec resolve against. */
  dir: string;
  name: string;
  spec: TaskSpec;
}

/** Overrides from the command line; `env` defaults to process.env. */
export interface LoadTaskOptions {
  /** `--var K=V`: override or add variables. */
  vars?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  /** `--prompt`: replaces the spec's prompt (templated the same way). */
  promptOverride?: string;
  /** `--model provider:id`: replaces the spec's model. */
  modelOverride?: string;
}

/** Default timeout of a command hook: 60 s. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;
/** Default `before_stop` attempts: 3. */
export const DEFAULT_MAX_ATTEMPTS = 3;
/** Default tools when the spec lists none: everything but bash, which must be asked for. */
export const DEFAULT_TOOLS: readonly KnownToolName[] = ["read", "write", "edit", "grep", "find", "ls"];
/** Default `limits.wind_down`: the model is told to wrap up at 80 % of a limit. */
export const DEFAULT_WIND_DOWN_AT = 0.8;
/** Defaults of `compaction`. */
export const DEFAULT_COMPACTION: CompactionSpec = { enabled: true, threshold: 0.85, target: 0.4 };
/** Default timeout of one MCP tool call: 120 s. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 120_000;
/** Default time an MCP server has to start and list its tools: 60 s. */
export const DEFAULT_MCP_START_TIMEOUT_MS = 60_000;
/** Default output directory, relative to the workspace. */
export const DEFAULT_OUTPUT_DIR = ".agent-run";
