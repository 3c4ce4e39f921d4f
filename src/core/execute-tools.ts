import { errorText } from "./errors.ts";
import type { AgentEvent } from "./events.ts";
import type {
  AfterToolCallHook,
  AgentContext,
  AgentToolResult,
  AnyAgentTool,
  AssistantMessage,
  BeforeToolCallHook,
  ToolCall,
  ToolExecutionMode,
  ToolResultMessage,
} from "./types.ts";
import { validateToolArguments } from "./validate.ts";

export interface ExecuteToolsOptions {
  assistantMessage: AssistantMessage;
  toolCalls: ToolCall[];
  context: AgentContext;
  mode: ToolExecutionMode;
  beforeToolCall?: BeforeToolCallHook;
  afterToolCall?: AfterToolCallHook;
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
  now: () => number;
}

export interface ExecutedTool {
  message: ToolResultMessage;
  terminate: boolean;
}

/**
 * Runs a turn's tool calls and returns their results in call order, whatever order they finish
 * in. Consecutive calls whose effective mode is parallel run concurrently; a call whose mode is
 * sequential waits for everything before it and runs alone. Never throws: every failure becomes
 * an error result the model sees.
 */
export async function executeToolCalls(options: ExecuteToolsOptions): Promise<ExecutedTool[]> {
  const results: ExecutedTool[] = [];
  let batch: ToolCall[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const running = batch.map((call) => executeOne(call, options));
    batch = [];
    results.push(...(await Promise.all(running)));
  };
  for (const call of options.toolCalls) {
    const tool = findTool(options.context.tools, call.name);
    const mode = tool?.executionMode ?? options.mode;
    if (mode === "parallel") {
      batch.push(call);
    } else {
      await flush();
      results.push(await executeOne(call, options));
    }
  }
  await flush();
  return results;
}

function findTool(tools: AnyAgentTool[], name: string): AnyAgentTool | undefined {
  return tools.find((tool) => tool.name === name);
}

function errorResult(text: string): AgentToolResult {
  return { content: [{ type: "text", text }], details: {} };
}

async function executeOne(call: ToolCall, options: ExecuteToolsOptions): Promise<ExecutedTool> {
  const { emit, context, signal } = options;
  const started = options.now();
  emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });

  let result: AgentToolResult;
  let isError = false;
  let blocked = false;
  let blockReason: string | undefined;
  let args: unknown = call.arguments;

  const tool = findTool(context.tools, call.name);
  if (signal.aborted) {
    result = errorResult("Tool call skipped: the run was aborted.");
    isError = true;
  } else if (call.parseError !== undefined) {
    result = errorResult(
      `The arguments of tool call "${call.name}" are not valid JSON (${call.parseError}). Send the call again with a complete JSON object.`,
    );
    isError = true;
  } else if (!tool) {
    const names = context.tools.map((t) => t.name).join(", ") || "(none)";
    result = errorResult(`Tool "${call.name}" does not exist. Available tools: ${names}.`);
    isError = true;
  } else {
    const validation = validateToolArguments(tool, call.arguments);
    if (!validation.ok) {
      result = errorResult(validation.message);
      isError = true;
    } else {
      args = validation.value;
      const decision = await runBeforeHook(options, call, args);
      if (decision.block) {
        blocked = true;
        isError = true;
        const reason = decision.reason ?? "blocked by a before_tool_call hook";
        blockReason = reason;
        result = errorResult(`Tool call blocked: ${reason}`);
        emit({
          type: "hook_decision",
          hook: "beforeToolCall",
          toolCallId: call.id,
          toolName: call.name,
          decision: "block",
          reason,
        });
      } else {
        try {
          result = await tool.execute(
            call.id,
            args,
            signal,
            (partialResult) =>
              emit({
                type: "tool_execution_update",
                toolCallId: call.id,
                toolName: call.name,
                partialResult,
              }),
            context,
          );
          isError = result.isError === true;
        } catch (error) {
          result = errorResult(
            signal.aborted
              ? `Tool "${call.name}" was aborted.`
              : `Tool "${call.name}" failed: ${errorText(error)}`,
          );
          isError = true;
        }
      }
    }
  }

  if (!blocked && options.afterToolCall && tool) {
    try {
      const patch = await options.afterToolCall(
        { assistantMessage: options.assistantMessage, toolCall: call, args, result, isError, context },
        signal,
      );
      if (patch) {
        result = {
          ...result,
          ...(patch.content !== undefined && { content: patch.content }),
          ...(patch.details !== undefined && { details: patch.details }),
          ...(patch.usage !== undefined && { usage: patch.usage }),
          ...(patch.terminate !== undefined && { terminate: patch.terminate }),
        };
        if (patch.isError !== undefined) isError = patch.isError;
        emit({
          type: "hook_decision",
          hook: "afterToolCall",
          toolCallId: call.id,
          toolName: call.name,
          decision: "patch",
        });
      }
    } catch (error) {
      result = {
        ...result,
        content: [
          ...result.content,
          { type: "text", text: `after_tool_call hook failed: ${errorText(error)}` },
        ],
      };
    }
  }

  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: result.content,
    details: result.details,
    isError,
    timestamp: options.now(),
    ...(result.usage && { usage: result.usage }),
    ...(result.addedToolNames && { addedToolNames: result.addedToolNames }),
  };
  emit({
    type: "tool_execution_end",
    toolCallId: call.id,
    toolName: call.name,
    result: message,
    isError,
    blocked,
    ...(blockReason !== undefined && { blockReason }),
    durationMs: options.now() - started,
  });
  return { message, terminate: result.terminate === true };
}

async function runBeforeHook(
  options: ExecuteToolsOptions,
  call: ToolCall,
  args: unknown,
): Promise<{ block: boolean; reason?: string }> {
  if (!options.beforeToolCall) return { block: false };
  try {
    const decision = await options.beforeToolCall(
      { assistantMessage: options.assistantMessage, toolCall: call, args, context: options.context },
      options.signal,
    );
    if (decision?.block)
      return { block: true, ...(decision.reason !== undefined && { reason: decision.reason }) };
    return { block: false };
  } catch (error) {
    // A guard that crashes must not let the call through.
    return { block: true, reason: `before_tool_call hook failed: ${errorText(error)}` };
  }
}
