import { errorText } from "./errors.ts";
import { type AgentEvent, type AgentRunOutcome, type NoticeKind, ruleOf } from "./events.ts";
import { executeToolCalls } from "./execute-tools.ts";
import { checkLimits, type LimitState, windDownNotice } from "./limits.ts";
import { activateTools, runPrepareNextTurn } from "./prepare-next-turn.ts";
import type { StreamFunction } from "./provider.ts";
import { createRepeatGuard } from "./repeat-guard.ts";
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
  Model,
  PrepareNextTurnHook,
  ProviderErrorInfo,
  RepeatedFailureLimits,
  ThinkingLevel,
  ToolCall,
  ToolExecutionMode,
  ToolResultMessage,
  TransformContextHook,
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
  transformContext?: TransformContextHook;
  /** `false`: never end a run for repeated failures. */
  repeatedFailures: RepeatedFailureLimits | false;
  limits: AgentLimits;
  now: () => number;
}

/**
 * Replies in a row cut off by the output-token limit (text only) that the model is asked to
 * continue; one more ends the run as a failure rather than as a success it is not.
 */
export const MAX_CUT_OFF_CONTINUES = 3;

/** What the model is told after a reply the output-token limit cut off. */
export const CUT_OFF_MESSAGE =
  "Notice: your last reply was cut off by the output-token limit before it ended. Continue from where it stopped. Keep replies shorter: write large content in several smaller tool calls.";

/** What one loop run keeps between turns. */
interface LoopRun {
  readonly state: LoopState;
  readonly config: LoopConfig;
  readonly signal: AbortSignal;
  readonly emit: (event: AgentEvent) => void;
  readonly newMessages: AgentMessage[];
  readonly usage: Usage;
  readonly started: number;
  readonly repeats: ReturnType<typeof createRepeatGuard> | undefined;
  turns: number;
  lastCallCost: number;
  stopAttempts: number;
  cutOffs: number;
  windDownGiven: boolean;
}

/** A finished turn: the assistant message, its tool results, and whether a tool ended the run. */
interface TurnResult {
  message: AssistantMessage;
  toolCalls: ToolCall[];
  toolResults: ToolResultMessage[];
  terminate: boolean;
  /** Set when the same call failed too often in a row: the run ends as a failure. */
  repeatedFailure?: string;
}

type LoopEnd = Omit<AgentRunOutcome, "newMessages" | "turns" | "usage">;

/**
 * Runs turns until the model stops, a tool terminates, a limit is reached, the provider fails or
 * the signal aborts. Never throws for those: the outcome says which. Each turn is four steps:
 * `checkBeforeTurn` (abort, limits, the wind-down notice), `runTurn` (the context transform, the
 * model's message, its tool calls), `decideAfterTurn` (terminate, repeats, cut-off replies, stop
 * and before-stop) and `runPrepareNextTurn` (the hooks).
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
    started: config.now(),
    repeats: config.repeatedFailures === false ? undefined : createRepeatGuard(config.repeatedFailures),
    turns: 0,
    lastCallCost: 0,
    stopAttempts: 0,
    cutOffs: 0,
    windDownGiven: false,
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
      await runPrepareNextTurn(
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

/** A user message of the agent's own, announced by a `notice` event first. */
function notify(run: LoopRun, notice: NoticeKind, text: string): void {
  run.emit({ type: "notice", notice, message: text });
  appendAndAnnounce(run, { role: "user", content: text, timestamp: run.config.now() });
}

function limitState(run: LoopRun): LimitState {
  return {
    turns: run.turns,
    usage: run.usage,
    lastCallCost: run.lastCallCost,
    elapsedMs: run.config.now() - run.started,
  };
}

/** Abort and limits, checked before each model call; near a limit, the model is told once. */
function checkBeforeTurn(run: LoopRun): LoopEnd | undefined {
  if (run.signal.aborted) return { reason: "aborted" };
  const limit = checkLimits(run.config.limits, limitState(run));
  if (limit) {
    run.emit({ type: "limit", limit: limit.kind, message: limit.message });
    return { reason: "limit", limit: limit.kind, message: limit.message };
  }
  if (!run.windDownGiven && run.turns > 0) {
    const notice = windDownNotice(run.config.limits, limitState(run));
    if (notice) {
      run.windDownGiven = true;
      notify(run, "wind_down", notice);
    }
  }
  return undefined;
}

/**
 * The messages the model is sent: the transcript, through `transformContext` when there is one.
 * A transform that throws ends the run.
 */
async function shapeContext(
  run: LoopRun,
  overflow: ProviderErrorInfo | undefined,
): Promise<AgentMessage[] | LoopEnd> {
  const { state, config, signal, emit } = run;
  if (!config.transformContext) return state.messages;
  try {
    return await config.transformContext(state.messages, signal, {
      model: state.model,
      systemPrompt: state.systemPrompt,
      tools: state.tools,
      ...(overflow && { overflow }),
      addUsage: (usage) => {
        addUsage(run.usage, usage);
        emit({ type: "usage", turn: run.turns, usage, total: structuredClone(run.usage) });
      },
    });
  } catch (error) {
    if (signal.aborted) return { reason: "aborted" };
    return { reason: "error", message: `transformContext failed: ${errorText(error)}` };
  }
}

/**
 * One model call and its tool calls; a failed or aborted call ends the loop. A call refused for
 * not fitting the context window is sent once more after `transformContext` has made it smaller;
 * the refused attempt is not kept in the transcript.
 */
async function runTurn(run: LoopRun): Promise<TurnResult | LoopEnd> {
  const { state, config, signal, emit } = run;
  let messages = await shapeContext(run, undefined);
  if (!Array.isArray(messages)) return messages;
  run.turns++;
  emit({ type: "turn_start", turn: run.turns, model: state.model, thinkingLevel: state.thinkingLevel });
  const context: AgentContext = {
    systemPrompt: state.systemPrompt,
    messages: state.messages,
    tools: state.tools,
  };
  let message = await streamAssistant(state, messages, config.stream, signal, emit, config.now);
  if (message.error?.kind === "context_length" && config.transformContext && !signal.aborted) {
    addUsage(run.usage, message.usage);
    messages = await shapeContext(run, message.error);
    if (!Array.isArray(messages)) {
      emit({ type: "turn_end", turn: run.turns, message, toolResults: [] });
      return messages;
    }
    message = await streamAssistant(state, messages, config.stream, signal, emit, config.now);
  }
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
  let repeatNotice: string | undefined;
  let repeatedFailure: string | undefined;
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
    for (const [i, { message: result, terminate: ends }] of executed.entries()) {
      appendAndAnnounce(run, result);
      toolResults.push(result);
      if (result.usage) addUsage(run.usage, result.usage);
      if (result.addedToolNames) activateTools(state, config.availableTools, result.addedToolNames);
      if (ends) terminate = true;
      const call = toolCalls[i];
      const verdict =
        call && run.repeats ? run.repeats.observe(call, result, run.turns) : { kind: "ok" as const };
      if (verdict.kind === "warn") repeatNotice = verdict.notice;
      if (verdict.kind === "fail") repeatedFailure ??= verdict.reason;
    }
  }
  emit({ type: "turn_end", turn: run.turns, message, toolResults });
  if (repeatNotice && !repeatedFailure && !terminate) notify(run, "repeated_failure", repeatNotice);
  return {
    message,
    toolCalls,
    toolResults,
    terminate,
    ...(repeatedFailure !== undefined && { repeatedFailure }),
  };
}

/**
 * Whether the run ends after this turn: an abort, a terminating tool, a call failing the same way
 * too often, replies cut off too often, or a model that stopped calling tools (unless the
 * before-stop hook sends it back to work, with a follow-up message). A reply the output-token
 * limit cut off is never a stop: the model is asked to continue.
 */
async function decideAfterTurn(run: LoopRun, turn: TurnResult): Promise<LoopEnd | undefined> {
  const { config, signal, emit, state } = run;
  if (signal.aborted) return { reason: "aborted" };
  if (turn.terminate) return { reason: "terminate" };
  if (turn.repeatedFailure !== undefined) {
    emit({ type: "notice", notice: "repeated_failure", message: `The run ends: ${turn.repeatedFailure}` });
    return { reason: "failure", message: turn.repeatedFailure };
  }
  if (turn.toolCalls.length > 0) {
    run.cutOffs = 0;
    return undefined;
  }
  if (turn.message.stopReason === "length") {
    run.cutOffs++;
    if (run.cutOffs > MAX_CUT_OFF_CONTINUES) {
      return {
        reason: "failure",
        message: `the model's reply was cut off by the output-token limit ${run.cutOffs} times in a row; raise model.max_output_tokens`,
      };
    }
    notify(run, "cut_off", CUT_OFF_MESSAGE);
    return undefined;
  }
  run.cutOffs = 0;
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
