import path from "node:path";
import { formatCount, modelLabel } from "../core/format.ts";
import type { Model, ModelPricing } from "../core/types.ts";
import { modelInfo } from "../providers/model-catalog.ts";
import { formatBytes } from "../system/caps.ts";
import { formatSpecDuration } from "./duration.ts";
import type { HookMatch, LoadedTask, McpServerSpec, ToolSpec } from "./types.ts";

/**
 * The effective configuration of a task, as `agent-run validate` prints it: model, its price and
 * context window (from the catalog once `loadModelCatalog()` has resolved), workspace and output dir, each tool with its policy, limits, and the hooks in the order they run.
 * Plain text, no color, one fact per line. `workspace` overrides the spec's workdir (`--cwd`),
 * `outDir` its outputs dir (`--out`).
 */
export function describeTask(
  task: LoadedTask,
  options: { workspace?: string; outDir?: string } = {},
): string {
  const { spec } = task;
  const workspace = options.workspace ?? path.resolve(task.dir, spec.workdir);
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`${label.padEnd(10)} ${value}`);

  row("task", `${task.name}${task.file ? `  (${task.file})` : ""}`);
  const info = modelInfo(spec.model);
  row("model", `${modelText(spec.model)}  ${priceText(info.pricing)}`);
  row("context", contextText(info.contextWindow, info.maxOutputTokens));
  row("thinking", spec.thinking ?? "off");
  row("workspace", `${workspace}${spec.workdir === "." ? "" : `  (workdir ${spec.workdir})`}`);
  row("outputs", options.outDir ?? path.resolve(workspace, spec.outputs.dir));
  row("execution", `${spec.execution} · sandbox ${spec.sandbox}`);
  row("limits", limitsText(task));
  row("long runs", longRunText(task));
  row("caps", capsText(task));

  lines.push("tools");
  for (const tool of spec.tools) lines.push(`  ${tool.name.padEnd(6)} ${toolPolicy(tool)}`);

  if (spec.mcpServers.length > 0) {
    lines.push("mcp servers (their tools are mcp__SERVER__TOOL; validate --mcp lists them)");
    const width = Math.max(...spec.mcpServers.map((server) => server.name.length));
    for (const server of spec.mcpServers)
      lines.push(`  ${server.name.padEnd(width)}  ${mcpServerText(server)}`);
  }
  if (spec.outputSchema) {
    const from = spec.outputSchema.file ? path.relative(task.dir, spec.outputSchema.file) : "inline";
    row("result", `submit_result, checked against output_schema (${from}); written to result.json`);
  }

  const { hooks } = spec;
  const count =
    hooks.beforeToolCall.length +
    hooks.afterToolCall.length +
    hooks.prepareNextTurn.length +
    hooks.beforeStop.length;
  lines.push(count === 0 ? "hooks      none" : "hooks (in the order they run)");
  for (const rule of hooks.beforeToolCall) {
    const action =
      rule.block !== undefined
        ? `block "${rule.block}"`
        : `run ${rule.run?.text} (timeout ${formatSpecDuration(rule.timeoutMs)})`;
    lines.push(`  before_tool_call[${rule.index}]  ${matchText(rule.match)} → ${action}`);
  }
  for (const rule of hooks.afterToolCall) {
    lines.push(
      `  after_tool_call[${rule.index}]   ${matchText(rule.match)} → run ${rule.run.text} (timeout ${formatSpecDuration(rule.timeoutMs)})`,
    );
  }
  for (const rule of hooks.prepareNextTurn) {
    const when = [
      rule.when.turnGte !== undefined && `from turn ${rule.when.turnGte}`,
      rule.when.costGteUsd !== undefined && `once $${rule.when.costGteUsd} is spent`,
    ].filter(Boolean);
    const set = [
      rule.model && `model ${modelText(rule.model)}`,
      rule.thinking && `thinking ${rule.thinking}`,
    ].filter(Boolean);
    lines.push(`  prepare_next_turn[${rule.index}] ${when.join(" and ")} → ${set.join(", ")}`);
  }
  for (const rule of hooks.beforeStop) {
    lines.push(
      `  before_stop[${rule.index}]       run ${rule.run.text} (at most ${rule.maxAttempts} attempt${rule.maxAttempts === 1 ? "" : "s"}, timeout ${formatSpecDuration(rule.timeoutMs)})`,
    );
  }

  const prompt = spec.prompt.trim();
  const first = prompt.split("\n", 1)[0] ?? "";
  row("prompt", `${first.length > 100 ? `${first.slice(0, 99)}…` : first}  (${prompt.length} chars)`);
  if (spec.system !== undefined) row("system", `custom (${spec.system.length} chars)`);
  return lines.join("\n");
}

function modelText(model: Model): string {
  return `${modelLabel(model)}${model.baseUrl ? ` at ${model.baseUrl}` : ""}`;
}

function priceText(pricing: ModelPricing | undefined): string {
  if (!pricing) return "(price unknown: cost will be reported as unknown)";
  const usd = (n: number) => `$${n.toFixed(2)}`;
  return `(${usd(pricing.input)} in / ${usd(pricing.output)} out per million tokens; cache read ${usd(pricing.cacheRead)}, write ${usd(pricing.cacheWrite)})`;
}

function contextText(window: number | undefined, maxOutput: number | undefined): string {
  if (window === undefined)
    return "unknown (compacted only when the provider says the conversation is too long)";
  return `${formatCount(window)} tokens${maxOutput !== undefined ? `, at most ${formatCount(maxOutput)} out` : ""}`;
}

function limitsText(task: LoadedTask): string {
  const { limits } = task.spec;
  const parts = [
    `max_turns ${limits.maxTurns ?? "none"}`,
    `max_cost_usd ${limits.maxCostUsd !== undefined ? `$${limits.maxCostUsd}` : "none"}`,
    `max_tokens ${limits.maxTokens ?? "none"}`,
    `timeout ${limits.timeoutMs !== undefined ? formatSpecDuration(limits.timeoutMs) : "none"}`,
  ];
  return parts.join(" · ");
}

/** Compaction and the wind-down notice. */
function longRunText(task: LoadedTask): string {
  const { compaction, limits } = task.spec;
  return [
    compaction.enabled
      ? `compacted at ${percent(compaction.threshold)} of the context window, down to ${percent(compaction.target)}`
      : "never compacted",
    limits.windDownAt !== undefined
      ? `told to wrap up at ${percent(limits.windDownAt)} of a limit`
      : "never told to wrap up",
  ].join(" · ");
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 1000) / 10}%`;
}

function capsText(task: LoadedTask): string {
  const { caps } = task.spec;
  return [
    `command output ${formatBytes(caps.commandOutputBytes)}`,
    `saved outputs ${formatBytes(caps.savedOutputBytes)}`,
    `/tmp ${formatBytes(caps.tmpBytes)}`,
    `/dev/shm ${formatBytes(caps.devShmBytes)}`,
    `$HOME ${formatBytes(caps.homeBytes)}`,
    `processes ${caps.processes}`,
    `turn results ${formatBytes(caps.turnResultBytes)}`,
    `tool calls per turn ${caps.turnToolCalls}`,
  ].join(" · ");
}

function toolPolicy(tool: ToolSpec): string {
  const o = tool.options;
  const parts: string[] = [];
  if (o.allow) parts.push(`allow only: ${o.allow.join(", ")}`);
  if (o.deny) parts.push(`deny: ${o.deny.join(", ")}`);
  if (tool.name === "bash")
    parts.push(o.timeoutMs !== undefined ? `timeout ${formatSpecDuration(o.timeoutMs)}` : "timeout default");
  if (o.env) parts.push(`passes env: ${o.env.join(", ")}`);
  if (o.protect) parts.push(`protects: ${o.protect.join(", ")}`);
  if (o.maxOutputLines !== undefined) parts.push(`max ${o.maxOutputLines} lines`);
  if (o.maxOutputBytes !== undefined) parts.push(`max ${o.maxOutputBytes} bytes`);
  if (tool.name === "bash" && !o.allow) parts.unshift("any command");
  return parts.join(" · ") || "defaults";
}

/** A server as written: templates unsubstituted, env and header names only, never a value. */
function mcpServerText(server: McpServerSpec): string {
  const parts =
    server.transport === "stdio"
      ? [
          `stdio: ${server.display}`,
          ...(Object.keys(server.env).length > 0 ? [`env ${Object.keys(server.env).join(", ")}`] : []),
          ...(server.cwd !== undefined ? [`cwd ${server.cwd}`] : []),
          server.network ? "network on" : "network off in the sandbox",
        ]
      : [
          `http: ${server.display}`,
          ...(Object.keys(server.headers).length > 0
            ? [`headers ${Object.keys(server.headers).join(", ")}`]
            : []),
        ];
  parts.push(server.tools ? `tools ${server.tools.join(", ")}` : "all its tools");
  parts.push(`timeout ${formatSpecDuration(server.timeoutMs)}`);
  return parts.join(" · ");
}

function matchText(match: HookMatch | undefined): string {
  if (!match) return "every call";
  const parts = [
    match.tools ? match.tools.join(", ") : "any tool",
    match.path !== undefined && `on ${match.path}`,
    match.command !== undefined && `running ${match.command}`,
  ].filter(Boolean);
  return parts.join(" ");
}
