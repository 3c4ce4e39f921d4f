import { errorText } from "./errors.ts";
import { type AgentEvent, type AgentRunOutcome, ruleOf } from "./events.ts";
import { executeToolCalls } from "./execute-tools.ts";
import { formatCost, modelLabel } from "./format.ts";
import type { StreamFunction } from "./provider.ts";
import { streamAssistant } from "./stream-assistant.ts";
import type {
  AfterToolCallHook,
  AgentContext,
  AgentLimits,
  AgentMessage,
  AnyAgentTool,
  AssistantMessage,
  BeforeStopHook,
  BeforeToolCallHook,
  LimitKind,
  Model,
  PrepareNextTurnHook,
  ThinkingLevel,
  ToolCall,
  ToolExecutionMode,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "./types.ts";
import { addUsage, emptyUsage } from "./usage.ts";

/** The mutable state one loop works on; `Agent` owns it and exposes it as `agent.state`. */
export interface LoopState {
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
  tools: AnyAgentTool[];
  messages: AgentMessage[];
}

export interface LoopConfig {
  stream: StreamFunction;
  toolExecution: ToolExecutionMode;
  availableTools: AnyAgentTool[];
  beforeToolCall?: BeforeToolCallHook;
  afterToolCall?: AfterToolCallHook;
  prepareNextTurn?: PrepareNextTurnHook;
  prepareNextTurnWithContext?: PrepareNextTurnHook;
  beforeStop?: BeforeStopHook;
  limits: AgentLimits;
  now: () => number;
}

/** What one loop run keeps between turns. */
interface LoopRun {
  readonly state: LoopState;
  readonly config: LoopConfig;
  readonly signal: AbortSignal;
  readonly emit: (event: AgentEvent) => void;
  readonly newMessages: AgentMessage[];
  readonly usage: Usage;
  turns: number;
  lastCallCost: number;
  stopAttempts: number;
}

/** A finished turn: the assistant message, its tool results, and whether a tool ended the run. */
interface TurnResult {
  message: AssistantMessage;
  toolCalls: ToolCall[];
  toolResults: ToolResultMessage[];
  terminate: boolean;
}

type LoopEnd = Omit<AgentRunOutcome, "newMessages" | "turns" | "usage">;

/**
 * Runs turns until the model stops, a tool terminates, a limit is reached, the provider fails or
 * the signal aborts. Never throws for those: the outcome says which. Each turn is four steps:
 * `checkBeforeTurn` (abort, limits), `runTurn` (the model's message, then its tool calls),
 * `decideAfterTurn` (terminate, stop and before-stop) and `prepareNextTurn` (the hooks).
 */
export async function runAgentLoop(
  state: LoopState,
  config: LoopConfig,
  userMessage: UserMessage,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
): Promise<AgentRunOutcome> {
  const run: LoopRun = {
    state,
    config,
    signal,
    emit,
    newMessages: [],
    usage: emptyUsage(),
    turns: 0,
    lastCallCost: 0,
    stopAttempts: 0,
  };
  const finish = (end: LoopEnd): AgentRunOutcome => ({
    ...end,
    newMessages: run.newMessages,
    turns: run.turns,
    usage: run.usage,
  });
  appendAndAnnounce(run, userMessage);

  while (true) {
    const blocked = checkBeforeTurn(run);
    if (blocked) return finish(blocked);
    const turn = await runTurn(run);
    if ("reason" in turn) return finish(turn);
    const end = await decideAfterTurn(run, turn);
    if (end) return finish(end);
    try {
      await prepareNextTurn(
        state,
        config,
        { ...turn, newMessages: run.newMessages, turns: run.turns, usage: run.usage },
        emit,
      );
    } catch (error) {
      return finish({ reason: "error", message: `prepareNextTurn hook failed: ${errorText(error)}` });
    }
  }
}

function append(run: LoopRun, message: AgentMessage): void {
  run.state.messages.push(message);
  run.newMessages.push(message);
}

function appendAndAnnounce(run: LoopRun, message: UserMessage | ToolResultMessage): void {
  append(run, message);
  run.emit({ type: "message_start", message });
  run.emit({ type: "message_end", message });
}

/** Abort and limits, checked before each model call. */
function checkBeforeTurn(run: LoopRun): LoopEnd | undefined {
  if (run.signal.aborted) return { reason: "aborted" };
  const limit = checkLimits(run.config.limits, run.turns, run.usage, run.lastCallCost);
  if (!limit) return undefined;
  run.emit({ type: "limit", limit: limit.kind, message: limit.message });
  return { reason: "limit", limit: limit.kind, message: limit.message };
}

/** One model call and its tool calls; a failed or aborted call ends the loop. */
async function runTurn(run: LoopRun): Promise<TurnResult | LoopEnd> {
  const { state, config, signal, emit } = run;
  run.turns++;
  emit({ type: "turn_start", turn: run.turns, model: state.model, thinkingLevel: state.thinkingLevel });
  const context: AgentContext = {
    systemPrompt: state.systemPrompt,
    messages: state.messages,
    tools: state.tools,
  };
  const message = await streamAssistant(state, config.stream, signal, emit, config.now);
  append(run, message);
  addUsage(run.usage, message.usage);
  run.lastCallCost = message.usage.cost.total;
  emit({ type: "usage", turn: run.turns, usage: message.usage, total: structuredClone(run.usage) });

  if (message.stopReason === "aborted" || message.stopReason === "error") {
    emit({ type: "turn_end", turn: run.turns, message, toolResults: [] });
    if (message.stopReason === "aborted" || signal.aborted) return { reason: "aborted" };
    return { reason: "error", message: message.errorMessage ?? "the provider failed" };
  }

  const toolCalls = message.content.filter((part): part is ToolCall => part.type === "toolCall");
  const toolResults: ToolResultMessage[] = [];
  let terminate = false;
  if (toolCalls.length > 0) {
    const executed = await executeToolCalls({
      assistantMessage: message,
      toolCalls,
      context,
      mode: config.toolExecution,
      ...(config.beforeToolCall && { beforeToolCall: config.beforeToolCall }),
      ...(config.afterToolCall && { afterToolCall: config.afterToolCall }),
      signal,
      emit,
      now: config.now,
    });
    for (const { message: result, terminate: ends } of executed) {
      appendAndAnnounce(run, result);
      toolResults.push(result);
      if (result.usage) addUsage(run.usage, result.usage);
      if (result.addedToolNames) activateTools(state, config.availableTools, result.addedToolNames);
      if (ends) terminate = true;
    }
  }
  emit({ type: "turn_end", turn: run.turns, message, toolResults });
  return { message, toolCalls, toolResults, terminate };
}

/**
 * Whether the run ends after this turn: an abort, a terminating tool, or a model that stopped
 * calling tools (unless the before-stop hook sends it back to work, with a follow-up message).
 */
async function decideAfterTurn(run: LoopRun, turn: TurnResult): Promise<LoopEnd | undefined> {
  const { config, signal, emit, state } = run;
  if (signal.aborted) return { reason: "aborted" };
  if (turn.terminate) return { reason: "terminate" };
  if (turn.toolCalls.length > 0) return undefined;
  if (!config.beforeStop) return { reason: "stop" };
  const context: AgentContext = {
    systemPrompt: state.systemPrompt,
    messages: state.messages,
    tools: state.tools,
  };
  let verdict: Awaited<ReturnType<BeforeStopHook>>;
  try {
    verdict = await config.beforeStop({ message: turn.message, context, attempt: run.stopAttempts }, signal);
  } catch (error) {
    verdict = { fail: `before_stop hook failed: ${errorText(error)}` };
  }
  if (signal.aborted) return { reason: "aborted" };
  if (verdict?.fail !== undefined) {
    emit({
      type: "hook_decision",
      hook: "before_stop",
      decision: "fail",
      reason: verdict.fail,
      ...ruleOf(verdict),
    });
    return { reason: "failure", message: verdict.fail };
  }
  if (verdict?.continue === undefined) return { reason: "stop" };
  run.stopAttempts++;
  emit({
    type: "hook_decision",
    hook: "before_stop",
    decision: "continue",
    reason: verdict.continue,
    ...ruleOf(verdict),
  });
  appendAndAnnounce(run, { role: "user", content: verdict.continue, timestamp: config.now() });
  return undefined;
}

async function prepareNextTurn(
  state: LoopState,
  config: LoopConfig,
  turn: {
    message: AssistantMessage;
    toolResults: ToolResultMessage[];
    newMessages: AgentMessage[];
    turns: number;
    usage: Usage;
  },
  emit: (event: AgentEvent) => void,
): Promise<void> {
  for (const hook of [config.prepareNextTurn, config.prepareNextTurnWithContext]) {
    if (!hook) continue;
    const context: AgentContext = {
      systemPrompt: state.systemPrompt,
      messages: state.messages,
      tools: state.tools,
    };
    const update = await hook({
      message: turn.message,
      toolResults: turn.toolResults,
      context,
      newMessages: turn.newMessages,
      turn: turn.turns,
      usage: structuredClone(turn.usage),
    });
    if (!update) continue;
    if (update.context) {
      state.systemPrompt = update.context.systemPrompt;
      state.messages = update.context.messages;
      state.tools = update.context.tools;
    }
    if (update.model) state.model = update.model;
    if (update.thinkingLevel) state.thinkingLevel = update.thinkingLevel;
    const changed = [
      update.model && `model ${modelLabel(update.model)}`,
      update.thinkingLevel && `thinking ${update.thinkingLevel}`,
      update.context && "context",
    ].filter(Boolean);
    emit({
      type: "hook_decision",
      hook: "prepare_next_turn",
      decision: "update",
      reason: update.reason ?? changed.join(", "),
      ...ruleOf(update),
      ...(update.model && { model: modelLabel(update.model) }),
      ...(update.thinkingLevel && { thinking: update.thinkingLevel }),
    });
  }
}

function activateTools(state: LoopState, available: AnyAgentTool[], names: string[]): void {
  for (const name of names) {
    if (state.tools.some((tool) => tool.name === name)) continue;
    const tool = available.find((candidate) => candidate.name === name);
    if (tool) state.tools = [...state.tools, tool];
  }
}

function checkLimits(
  limits: AgentLimits,
  turns: number,
  usage: Usage,
  lastCallCost: number,
): { kind: LimitKind; message: string } | undefined {
  if (limits.maxTurns !== undefined && turns >= limits.maxTurns) {
    return { kind: "turns", message: `max_turns reached (${turns} of ${limits.maxTurns})` };
  }
  if (limits.maxTokens !== undefined && usage.totalTokens >= limits.maxTokens) {
    return { kind: "tokens", message: `max_tokens reached (${usage.totalTokens} of ${limits.maxTokens})` };
  }
  if (limits.maxCostUsd !== undefined) {
    const spent = usage.cost.total;
    if (spent >= limits.maxCostUsd || (turns > 0 && spent + lastCallCost > limits.maxCostUsd)) {
      return {
        kind: "cost",
        message: `max_cost_usd reached: ${formatCost(spent)} spent, the next turn (about ${formatCost(lastCallCost)}) would exceed $${limits.maxCostUsd}`,
      };
    }
  }
  return undefined;
}
