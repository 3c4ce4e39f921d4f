import type { LoopConfig, LoopState } from "./agent-loop.ts";
import { type AgentEvent, ruleOf } from "./events.ts";
import { modelLabel } from "./format.ts";
import type {
  AgentContext,
  AgentMessage,
  AnyAgentTool,
  AssistantMessage,
  ToolResultMessage,
  Usage,
} from "./types.ts";

/** The turn that just ended, as the prepare-next-turn hooks see it. */
export interface EndedTurn {
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  newMessages: AgentMessage[];
  turns: number;
  usage: Usage;
}

/**
 * Runs `prepareNextTurn`, then `prepareNextTurnWithContext` (which sees the first one's changes),
 * applying each update to the loop state and announcing it. A hook that throws propagates: the
 * loop ends the run with its message.
 */
export async function runPrepareNextTurn(
  state: LoopState,
  config: LoopConfig,
  turn: EndedTurn,
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

/** Makes the tools named in a result's `addedToolNames` visible from the next turn on. */
export function activateTools(state: LoopState, available: AnyAgentTool[], names: string[]): void {
  for (const name of names) {
    if (state.tools.some((tool) => tool.name === name)) continue;
    const tool = available.find((candidate) => candidate.name === name);
    if (tool) state.tools = [...state.tools, tool];
  }
}
