import { errorText } from "./errors.ts";
import type { AgentEvent, AgentRunOutcome } from "./events.ts";
import { executeToolCalls } from "./execute-tools.ts";
import type { StreamFunction } from "./provider.ts";
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

/**
 * Runs turns until the model stops, a tool terminates, a limit is reached, the provider fails or
 * the signal aborts. Never throws for those: the outcome says which.
 */
export async function runAgentLoop(
  state: LoopState,
  config: LoopConfig,
  userMessage: UserMessage,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
): Promise<AgentRunOutcome> {
  const newMessages: AgentMessage[] = [];
  const usage = emptyUsage();
  let turns = 0;
  let lastCallCost = 0;
  let stopAttempts = 0;

  const append = (message: AgentMessage) => {
    state.messages.push(message);
    newMessages.push(message);
  };
  const finish = (outcome: Omit<AgentRunOutcome, "newMessages" | "turns" | "usage">): AgentRunOutcome => ({
    ...outcome,
    newMessages,
    turns,
    usage,
  });

  append(userMessage);
  emit({ type: "message_start", message: userMessage });
  emit({ type: "message_end", message: userMessage });

  while (true) {
    if (signal.aborted) return finish({ reason: "aborted" });
    const limit = checkLimits(config.limits, turns, usage, lastCallCost);
    if (limit) {
      emit({ type: "limit", limit: limit.kind, message: limit.message });
      return finish({ reason: "limit", limit: limit.kind, message: limit.message });
    }

    turns++;
    emit({ type: "turn_start", turn: turns, model: state.model, thinkingLevel: state.thinkingLevel });
    const context: AgentContext = {
      systemPrompt: state.systemPrompt,
      messages: state.messages,
      tools: state.tools,
    };
    const message = await streamAssistant(state, config.stream, signal, emit, config.now);
    append(message);
    addUsage(usage, message.usage);
    lastCallCost = message.usage.cost.total;
    emit({ type: "usage", turn: turns, usage: message.usage, total: structuredClone(usage) });

    if (message.stopReason === "aborted" || (signal.aborted && message.stopReason === "error")) {
      emit({ type: "turn_end", turn: turns, message, toolResults: [] });
      return finish({ reason: "aborted" });
    }
    if (message.stopReason === "error") {
      emit({ type: "turn_end", turn: turns, message, toolResults: [] });
      return finish({ reason: "error", message: message.errorMessage ?? "the provider failed" });
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
        append(result);
        toolResults.push(result);
        emit({ type: "message_start", message: result });
        emit({ type: "message_end", message: result });
        if (result.usage) addUsage(usage, result.usage);
        if (result.addedToolNames) activateTools(state, config.availableTools, result.addedToolNames);
        if (ends) terminate = true;
      }
    }
    emit({ type: "turn_end", turn: turns, message, toolResults });

    if (signal.aborted) return finish({ reason: "aborted" });
    if (terminate) return finish({ reason: "terminate" });

    if (toolCalls.length === 0) {
      if (!config.beforeStop) return finish({ reason: "stop" });
      let verdict: Awaited<ReturnType<BeforeStopHook>>;
      try {
        verdict = await config.beforeStop({ message, context, attempt: stopAttempts }, signal);
      } catch (error) {
        verdict = { fail: `before_stop hook failed: ${errorText(error)}` };
      }
      if (signal.aborted) return finish({ reason: "aborted" });
      if (verdict?.fail !== undefined) {
        emit({ type: "hook_decision", hook: "beforeStop", decision: "fail", reason: verdict.fail });
        return finish({ reason: "failure", message: verdict.fail });
      }
      if (verdict?.continue === undefined) return finish({ reason: "stop" });
      stopAttempts++;
      emit({ type: "hook_decision", hook: "beforeStop", decision: "continue", reason: verdict.continue });
      const followUp: UserMessage = { role: "user", content: verdict.continue, timestamp: config.now() };
      append(followUp);
      emit({ type: "message_start", message: followUp });
      emit({ type: "message_end", message: followUp });
    }

    try {
      await prepareNextTurn(state, config, { message, toolResults, newMessages, turns, usage }, emit);
    } catch (error) {
      return finish({ reason: "error", message: `prepareNextTurn hook failed: ${errorText(error)}` });
    }
  }
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
      update.model && `model ${update.model.provider}:${update.model.id}`,
      update.thinkingLevel && `thinking ${update.thinkingLevel}`,
      update.context && "context",
    ].filter(Boolean);
    emit({ type: "hook_decision", hook: "prepareNextTurn", decision: "update", reason: changed.join(", ") });
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
        message: `max_cost_usd reached: $${spent.toFixed(4)} spent, the next turn (about $${lastCallCost.toFixed(4)}) would exceed $${limits.maxCostUsd}`,
      };
    }
  }
  return undefined;
}

async function streamAssistant(
  state: LoopState,
  stream: StreamFunction,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
  now: () => number,
): Promise<AssistantMessage> {
  let started = false;
  let final: AssistantMessage | undefined;
  try {
    const events = stream({
      model: state.model,
      systemPrompt: state.systemPrompt,
      messages: state.messages,
      tools: state.tools,
      thinkingLevel: state.thinkingLevel,
      signal,
    });
    for await (const event of events) {
      if (event.type === "done" || event.type === "error") {
        final = event.message;
        break;
      }
      if (event.type === "start") {
        started = true;
        emit({ type: "message_start", message: event.partial });
      } else {
        emit({ type: "message_update", message: event.partial, event });
      }
    }
  } catch (error) {
    // Providers must not throw; if one does, the failure still takes the single error path.
    final = failedMessage(state.model, signal.aborted ? "aborted" : "error", errorText(error), now());
  }
  final ??= failedMessage(state.model, "error", "the provider's stream ended without a final message", now());
  if (!started) emit({ type: "message_start", message: final });
  emit({ type: "message_end", message: final });
  return final;
}

function failedMessage(
  model: Model,
  stopReason: "error" | "aborted",
  errorMessage: string,
  timestamp: number,
): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason,
    errorMessage,
    timestamp,
  };
}
