import { z } from "zod";
import { THINKING_LEVELS, type ThinkingLevel } from "../core/types.ts";
import { EXAMPLE_MODEL } from "../providers/model-ref.ts";
import { DURATION_PATTERN } from "./duration.ts";

/**
 * The task spec as written in YAML (DESIGN §3). This one zod schema gives the raw TypeScript
 * type, the validation and the JSON Schema file; it has no transforms so the JSON Schema stays
 * exact. Normalisation (durations to ms, tools to `{ name, options }`, …) happens in
 * `normalize.ts` after validation.
 */

/** The built-in tools a spec may name. */
export const KNOWN_TOOLS = ["bash", "read", "write", "edit", "grep", "find", "ls"] as const;
export type KnownToolName = (typeof KNOWN_TOOLS)[number];

export { DURATION_PATTERN } from "./duration.ts";

/** `32MiB`, `1GiB`, `512KiB` (powers of 1024), `100MB` (powers of 1000), `64B`; a bare number means bytes. */
export const SIZE_PATTERN = /^\d+(?:\.\d+)?\s?(?:[kKmMgG][iI]?)?[bB]$/;

const size = z
  .union([z.string().regex(SIZE_PATTERN), z.int().positive()])
  .describe(
    "A size: `32MiB`, `1GiB`, `512KiB` (powers of 1024), `100MB` (powers of 1000), or a number of bytes.",
  );

const duration = z
  .union([z.string().regex(DURATION_PATTERN), z.number().positive()])
  .describe("A duration: `120s`, `20m`, `1h30m`, `500ms`, or a number of seconds.");

const nonEmpty = z.string().min(1);
const fraction = z.number().gt(0).max(1).describe("A fraction in (0, 1], e.g. 0.8.");
const glob = nonEmpty.describe("A glob (picomatch syntax).");
const thinking = z.enum(THINKING_LEVELS as [ThinkingLevel, ...ThinkingLevel[]]);

/** `provider:id`, e.g. `anthropic:claude-sonnet-5-5`. */
export const MODEL_REF_PATTERN = /^[a-z][a-z0-9-]*:\S+$/;
const modelRef = z.string().regex(MODEL_REF_PATTERN).describe(`"provider:id", e.g. "${EXAMPLE_MODEL}"`);

const pricing = z
  .strictObject({
    input: z.number().nonnegative(),
    output: z.number().nonnegative(),
    cache_read: z.number().nonnegative().optional(),
    cache_write: z.number().nonnegative().optional(),
  })
  .describe("USD per million tokens. cache_read and cache_write default to 0.");

const modelObject = z.strictObject({
  provider: nonEmpty,
  id: nonEmpty,
  base_url: z.url().optional(),
  api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional(),
  thinking: thinking.optional(),
  max_output_tokens: z.int().positive().optional(),
  context_window: z
    .int()
    .positive()
    .optional()
    .describe("Tokens the model reads at most; overrides the model catalog (docs/providers.md)."),
  temperature: z.number().min(0).max(2).optional(),
  pricing: pricing.optional(),
  api: z.enum(["responses", "chat"]).optional(),
});

export const modelSchema = z.union([modelRef, modelObject]);

const outputBounds = {
  max_output_lines: z.int().positive().optional(),
  max_output_bytes: z.int().positive().optional(),
};

const bashOptions = z.strictObject({
  allow: z.array(glob).optional().describe("If present, only commands matching one of these globs run."),
  deny: z.array(glob).optional().describe("Commands matching one of these globs are refused."),
  timeout: duration.optional(),
  env: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/))
    .optional()
    .describe("Environment variables passed through to commands despite looking like secrets."),
  ...outputBounds,
});

const writeOptions = z.strictObject({
  protect: z.array(glob).optional().describe("Extra globs the tool may not change."),
});

const readOptions = z.strictObject({ ...outputBounds });

/** Options per tool; `null` (a bare `- read:`) means defaults. */
const toolOptions = {
  bash: bashOptions.nullable().optional(),
  read: readOptions.nullable().optional(),
  write: writeOptions.nullable().optional(),
  edit: writeOptions.nullable().optional(),
  grep: readOptions.nullable().optional(),
  find: readOptions.nullable().optional(),
  ls: readOptions.nullable().optional(),
} satisfies Record<KnownToolName, z.ZodType>;

const toolEntry = z.union([
  z.enum(KNOWN_TOOLS),
  z
    .strictObject(toolOptions)
    .refine((value) => Object.keys(value).length === 1, "a tool entry names exactly one tool")
    .describe("A tool name with its options: `{ bash: { timeout: 120s } }`."),
]);

/**
 * An MCP server's name in `mcp_servers`: letters and digits with single `-` or `_` between them, so
 * `__` only ever separates the parts of a tool name `mcp__S__T`.
 */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*$/;
/** A hook's pattern for MCP tools: `mcp__github__get_file`, `mcp__github__*`, `mcp__*`. */
export const MCP_TOOL_PATTERN = /^mcp__[A-Za-z0-9_*?-]+$/;

const toolPattern = z.union([
  z.enum(KNOWN_TOOLS),
  z
    .string()
    .regex(MCP_TOOL_PATTERN)
    .describe("An MCP tool as the model sees it, `mcp__SERVER__TOOL`; `*` and `?` are wildcards."),
]);

const match = z
  .strictObject({
    tool: z.union([toolPattern, z.array(toolPattern).min(1)]).optional(),
    path: glob
      .optional()
      .describe("Glob matched against the call's `path` argument, relative to the workspace."),
    command: glob.optional().describe("Glob matched against bash's `command`; `*` matches any text."),
  })
  .describe("Which tool calls a rule applies to; every given field must match. Absent: every call.");

const command = nonEmpty.describe(
  "A bash command run in the workspace. {{ vars.X }}, {{ env.X }}, {{ tool.name }}, {{ tool.path }}, {{ tool.command }} are substituted, shell-quoted.",
);

const beforeToolCallRule = z
  .strictObject({
    match: match.optional(),
    block: nonEmpty.optional().describe("Block matching calls with this reason."),
    run: command.optional(),
    timeout: duration.optional(),
  })
  .refine(
    (rule) => (rule.block === undefined) !== (rule.run === undefined),
    "a rule has either `block` or `run`",
  );

const afterToolCallRule = z.strictObject({
  match: match.optional(),
  run: command,
  timeout: duration.optional(),
});

const prepareNextTurnRule = z
  .strictObject({
    when: z
      .strictObject({
        turn_gte: z.int().positive().optional(),
        cost_gte_usd: z.number().nonnegative().optional(),
      })
      .refine((when) => Object.keys(when).length > 0, "`when` needs turn_gte or cost_gte_usd"),
    model: modelSchema.optional(),
    thinking: thinking.optional(),
  })
  .refine(
    (rule) => rule.model !== undefined || rule.thinking !== undefined,
    "a rule sets `model` or `thinking`",
  );

const beforeStopRule = z.strictObject({
  run: command,
  max_attempts: z.int().positive().optional().describe("Default: 3."),
  timeout: duration.optional(),
});

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);
const mcpTemplated = z.string().describe("{{ vars.X }} and {{ env.X }} are substituted.");

const mcpServer = z
  .strictObject({
    command: nonEmpty
      .optional()
      .describe("stdio: the program that runs the server (on PATH, or a path relative to the workspace)."),
    args: z.array(mcpTemplated).optional().describe("stdio: the program's arguments."),
    env: z.record(envName, mcpTemplated).optional().describe("stdio: variables set for the server."),
    cwd: nonEmpty
      .optional()
      .describe("stdio: the server's working directory, relative to the workspace. Default: the workspace."),
    network: z
      .boolean()
      .optional()
      .describe("stdio: whether the server may use the network inside the sandbox. Default: false."),
    url: nonEmpty.optional().describe("Streamable HTTP: the server's endpoint (http or https)."),
    headers: z
      .record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/), mcpTemplated)
      .optional()
      .describe("Streamable HTTP: headers sent with every request."),
    tools: z
      .array(nonEmpty)
      .min(1)
      .optional()
      .describe("Only these of the server's tools are offered (its own names). Default: all."),
    timeout: duration.optional().describe("Per tool call. Default: 120s."),
    start_timeout: duration.optional().describe("To start and list the tools. Default: 60s."),
  })
  .refine(
    (server) => (server.command === undefined) !== (server.url === undefined),
    "a server has either `command` (stdio) or `url` (streamable HTTP)",
  );

/** The raw task spec schema. Unknown keys are errors at every level. */
export const taskSchema = z.strictObject({
  name: nonEmpty.optional(),
  model: modelSchema.optional().describe("Required unless given with --model."),
  system: z.string().optional(),
  prompt: z.string().optional().describe("Required unless given with --prompt."),
  vars: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.union([z.string(), z.number(), z.boolean()]))
    .optional(),
  workdir: nonEmpty.optional().describe("The workspace root, relative to the task file. Default: ."),
  tools: z.array(toolEntry).optional(),
  execution: z.enum(["parallel", "sequential"]).optional(),
  sandbox: z
    .enum(["required", "auto", "off"])
    .optional()
    .describe(
      "Run bash and command hooks inside bubblewrap. required: fail when it cannot start; auto (default): fall back to unsandboxed only for trusted triggers; off: never.",
    ),
  sandbox_network: z
    .boolean()
    .optional()
    .describe("Whether sandboxed commands may use the network. Default: false."),
  protect: z
    .array(glob)
    .optional()
    .describe(
      "Extra paths (globs, relative to the workspace) no tool may change; literal paths and `dir/**` are read-only inside the sandbox too.",
    ),
  limits: z
    .strictObject({
      max_turns: z.int().positive().optional(),
      max_cost_usd: z.number().positive().optional(),
      max_tokens: z.int().positive().optional(),
      timeout: duration.optional(),
      wind_down: z
        .union([fraction, z.literal(false)])
        .optional()
        .describe(
          "When any limit is this far used up (a fraction), the model is told once what is left and to finish or wrap up. Default: 0.8; false: never.",
        ),
    })
    .optional(),
  compaction: z
    .union([
      z.literal(false),
      z.strictObject({
        threshold: fraction
          .optional()
          .describe(
            "Compact when a request reaches this fraction of the model's context window. Default: 0.85.",
          ),
        target: fraction
          .optional()
          .describe("A compaction brings the request down to this fraction of the window. Default: 0.4."),
      }),
    ])
    .optional()
    .describe(
      "How the conversation is kept within the model's context window (docs/task-spec.md, Long tasks); false: never compacted.",
    ),
  caps: z
    .strictObject({
      command_output: size
        .optional()
        .describe(
          "Bytes of one command's saved output (bash, command hooks); past it the command is stopped and the model told. Default: 32MiB.",
        ),
      saved_outputs: size
        .optional()
        .describe(
          "Bytes all saved command outputs of the run may hold in <outputs>/tool-output; the oldest go first. Default: 256MiB.",
        ),
      tmp_size: size.optional().describe("Size of the sandbox's /tmp. Default: 1GiB."),
      dev_shm_size: size.optional().describe("Size of the sandbox's /dev/shm. Default: 1GiB."),
      home_size: size.optional().describe("Size of the sandbox's $HOME. Default: 1GiB."),
      processes: z
        .int()
        .positive()
        .optional()
        .describe(
          "Processes the run's commands may have at once (a pids cgroup, else RLIMIT_NPROC). Default: 1024.",
        ),
      turn_results: size
        .optional()
        .describe("Bytes of tool results one turn may keep in memory; later results are cut. Default: 4MiB."),
      turn_tool_calls: z
        .int()
        .positive()
        .optional()
        .describe("Tool calls of one turn that are executed; the rest are refused. Default: 512."),
    })
    .optional()
    .describe("Caps on what the agent's commands and tool calls may use up (docs/security.md, Caps)."),
  hooks: z
    .strictObject({
      before_tool_call: z.array(beforeToolCallRule).optional(),
      after_tool_call: z.array(afterToolCallRule).optional(),
      prepare_next_turn: z.array(prepareNextTurnRule).optional(),
      before_stop: z.array(beforeStopRule).optional(),
    })
    .optional(),
  outputs: z.strictObject({ dir: nonEmpty.optional() }).optional(),
  review: z
    .strictObject({
      inline: z
        .boolean()
        .optional()
        .describe(
          "Offer the tool add_review_comment { path, line, body }: comments on lines of the new side, posted by the action as one pull-request review. Default: false.",
        ),
      max_comments: z
        .int()
        .positive()
        .max(100)
        .optional()
        .describe("Review comments accepted per run; later calls get an error. Default: 20."),
    })
    .optional()
    .describe("Inline review comments (docs/action.md, Inline review)."),
  mcp_servers: z
    .record(z.string().regex(MCP_SERVER_NAME_PATTERN), mcpServer)
    .optional()
    .describe("MCP servers whose tools the model may call, as mcp__NAME__TOOL (docs/mcp.md)."),
  output_schema: z
    .union([
      nonEmpty.describe("A .json file holding the schema, relative to the task file."),
      z.record(z.string(), z.unknown()).describe("A JSON Schema."),
    ])
    .optional()
    .describe(
      "The structured result: the model submits it with the submit_result tool, checked against this JSON Schema; written to result.json.",
    ),
});

/** A task file as written, after validation. */
export type RawTaskSpec = z.infer<typeof taskSchema>;
export type RawModel = z.infer<typeof modelSchema>;
export type RawMatch = z.infer<typeof match>;
export type RawMcpServer = z.infer<typeof mcpServer>;
