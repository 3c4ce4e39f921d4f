import { errorText } from "./errors.ts";
import { type AgentEvent, ruleOf } from "./events.ts";
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

/** What the model is told for each tool call of a message the output-token limit cut off. */
export const CUT_TOOL_CALL_MESSAGE =
  "Tool call not run: your message was cut off by the output-token limit, so this call may be " +
  "incomplete (none of that message's calls ran). Send it again, smaller: for example, split a " +
  "large write into a shorter write followed by edits that add the rest.";

/**
 * Runs a turn's tool calls and returns their results in call order, whatever order they finish
 * in. Consecutive calls whose effective mode is parallel run concurrently; a call whose mode is
 * sequential waits for everything before it and runs alone. Never throws: every failure becomes
 * an error result the model sees. When the output-token limit cut the message
 * (`stopReason: "length"`), no call runs, however complete it looks: each gets an error result.
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

/** A call's result before it becomes a message. */
interface CallOutcome {
  result: AgentToolResult;
  isError: boolean;
  /** Set when a `beforeToolCall` hook blocked the call. */
  blockReason?: string;
}

/**
 * A prepared call: `ready` to run, or `settled` without running (aborted, cut, malformed, unknown,
 * invalid or blocked). `reviewed` settled calls still go through the `afterToolCall` hook, as they
 * always have: they name a real tool and were neither blocked nor cut off.
 */
type PreparedCall =
  | { kind: "ready"; tool: AnyAgentTool; args: unknown }
  | { kind: "settled"; outcome: CallOutcome; reviewed: boolean };

/** The pipeline of one call: prepare, execute, review (the after hook), finalize. */
async function executeOne(call: ToolCall, options: ExecuteToolsOptions): Promise<ExecutedTool> {
  const started = options.now();
  options.emit({
    type: "tool_execution_start",
    toolCallId: call.id,
    toolName: call.name,
    args: call.arguments,
  });
  const prepared = await prepareCall(call, options);
  let outcome = prepared.kind === "ready" ? await executePrepared(call, prepared, options) : prepared.outcome;
  if (prepared.kind === "ready" || prepared.reviewed) {
    const args = prepared.kind === "ready" ? prepared.args : call.arguments;
    outcome = await reviewOutcome(call, args, outcome, options);
  }
  return finalizeCall(call, outcome, started, options);
}

async function prepareCall(call: ToolCall, options: ExecuteToolsOptions): Promise<PreparedCall> {
  const { context, signal, assistantMessage } = options;
  const tool = findTool(context.tools, call.name);
  const fail = (text: string, reviewed = tool !== undefined): PreparedCall => ({
    kind: "settled",
    outcome: { result: errorResult(text), isError: true },
    reviewed,
  });
  if (signal.aborted) return fail("Tool call skipped: the run was aborted.");
  if (assistantMessage.stopReason === "length") return fail(CUT_TOOL_CALL_MESSAGE, false);
  if (call.parseError !== undefined) {
    return fail(
      `The arguments of tool call "${call.name}" are not valid JSON (${call.parseError}). Send the call again with a complete JSON object.`,
    );
  }
  if (!tool) {
    const names = context.tools.map((t) => t.name).join(", ") || "(none)";
    return fail(`Tool "${call.name}" does not exist. Available tools: ${names}.`);
  }
  const validation = validateToolArguments(tool, call.arguments);
  if (!validation.ok) return fail(validation.message);
  const blocked = await runBeforeHook(options, call, validation.value);
  if (blocked === undefined) return { kind: "ready", tool, args: validation.value };
  const block = blocked.reason;
  options.emit({
    type: "hook_decision",
    hook: "before_tool_call",
    toolCallId: call.id,
    toolName: call.name,
    decision: "block",
    reason: block,
    ...ruleOf(blocked),
  });
  return {
    kind: "settled",
    outcome: { result: errorResult(`Tool call blocked: ${block}`), isError: true, blockReason: block },
    reviewed: false,
  };
}

/** Runs the tool. Progress updates it sends after it settled are dropped: its end was already told. */
async function executePrepared(
  call: ToolCall,
  prepared: { tool: AnyAgentTool; args: unknown },
  options: ExecuteToolsOptions,
): Promise<CallOutcome> {
  const { signal, emit } = options;
  let running = true;
  const onUpdate = (partialResult: AgentToolResult) => {
    if (running)
      emit({ type: "tool_execution_update", toolCallId: call.id, toolName: call.name, partialResult });
  };
  try {
    const result = await prepared.tool.execute(call.id, prepared.args, signal, onUpdate, options.context);
    return { result, isError: result.isError === true };
  } catch (error) {
    const text = signal.aborted
      ? `Tool "${call.name}" was aborted.`
      : `Tool "${call.name}" failed: ${errorText(error)}`;
    return { result: errorResult(text), isError: true };
  } finally {
    running = false;
  }
}

/** Applies the `afterToolCall` hook's patch; a hook that throws adds its error to the result. */
async function reviewOutcome(
  call: ToolCall,
  args: unknown,
  outcome: CallOutcome,
  options: ExecuteToolsOptions,
): Promise<CallOutcome> {
  if (!options.afterToolCall) return outcome;
  const { result, isError } = outcome;
  try {
    const patch = await options.afterToolCall(
      {
        assistantMessage: options.assistantMessage,
        toolCall: call,
        args,
        result,
        isError,
        context: options.context,
      },
      options.signal,
    );
    if (!patch) return outcome;
    options.emit({
      type: "hook_decision",
      hook: "after_tool_call",
      toolCallId: call.id,
      toolName: call.name,
      decision: "patch",
    });
    return {
      result: {
        ...result,
        ...(patch.content !== undefined && { content: patch.content }),
        ...(patch.details !== undefined && { details: patch.details }),
        ...(patch.usage !== undefined && { usage: patch.usage }),
        ...(patch.terminate !== undefined && { terminate: patch.terminate }),
      },
      isError: patch.isError ?? isError,
    };
  } catch (error) {
    const note = { type: "text" as const, text: `after_tool_call hook failed: ${errorText(error)}` };
    return { ...outcome, result: { ...result, content: [...result.content, note] } };
  }
}

function finalizeCall(
  call: ToolCall,
  { result, isError, blockReason }: CallOutcome,
  started: number,
  options: ExecuteToolsOptions,
): ExecutedTool {
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
  options.emit({
    type: "tool_execution_end",
    toolCallId: call.id,
    toolName: call.name,
    result: message,
    isError,
    blocked: blockReason !== undefined,
    ...(blockReason !== undefined && { blockReason }),
    durationMs: options.now() - started,
  });
  return { message, terminate: result.terminate === true };
}

/** Why the call is blocked (and by which rule), or undefined when it may run. A guard that crashes blocks it. */
async function runBeforeHook(
  options: ExecuteToolsOptions,
  call: ToolCall,
  args: unknown,
): Promise<{ reason: string; rule?: number } | undefined> {
  if (!options.beforeToolCall) return undefined;
  try {
    const decision = await options.beforeToolCall(
      { assistantMessage: options.assistantMessage, toolCall: call, args, context: options.context },
      options.signal,
    );
    if (!decision?.block) return undefined;
    return { reason: decision.reason ?? "blocked by a before_tool_call hook", ...ruleOf(decision) };
  } catch (error) {
    return { reason: `before_tool_call hook failed: ${errorText(error)}` };
  }
}

function findTool(tools: AnyAgentTool[], name: string): AnyAgentTool | undefined {
  return tools.find((tool) => tool.name === name);
}

function errorResult(text: string): AgentToolResult {
  return { content: [{ type: "text", text }], details: {} };
}
