import type {
  AssistantMessage,
  AssistantMessageEvent,
  StreamFunction,
  StreamRequest,
  ToolCall,
  Usage,
} from "../../src/core/index.ts";
import { emptyUsage } from "../../src/core/index.ts";

export interface ScriptedTurn {
  text?: string;
  toolCalls?: Array<{ name: string; arguments?: Record<string, unknown>; id?: string; parseError?: string }>;
  usage?: Partial<Omit<Usage, "cost">> & { cost?: number };
  stopReason?: AssistantMessage["stopReason"];
  errorMessage?: string;
  /** Wait for this long (or until aborted) before answering. */
  delayMs?: number;
}

/**
 * A StreamFunction that answers each request with the next scripted turn and records every
 * request it saw, so tests can assert on what the model was sent.
 */
export function scriptedStream(turns: Array<ScriptedTurn | ((req: StreamRequest) => ScriptedTurn)>) {
  const requests: StreamRequest[] = [];
  const snapshots: Array<{ messages: string; tools: string[]; model: string; thinking: string }> = [];
  let index = 0;
  const stream: StreamFunction = async function* (request) {
    requests.push(request);
    snapshots.push({
      messages: JSON.stringify(request.messages),
      tools: request.tools.map((t) => t.name),
      model: `${request.model.provider}:${request.model.id}`,
      thinking: request.thinkingLevel,
    });
    const entry = turns[index++];
    const turn = typeof entry === "function" ? entry(request) : entry;
    const message: AssistantMessage = {
      role: "assistant",
      content: [],
      provider: request.model.provider,
      model: request.model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
    if (!turn) {
      yield { type: "error", message: { ...message, stopReason: "error", errorMessage: "script exhausted" } };
      return;
    }
    if (turn.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, turn.delayMs);
        request.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (request.signal.aborted) {
        yield { type: "error", message: { ...message, stopReason: "aborted", errorMessage: "aborted" } };
        return;
      }
    }
    yield { type: "start", partial: message } satisfies AssistantMessageEvent;
    if (turn.text) {
      message.content.push({ type: "text", text: "" });
      for (const piece of turn.text.match(/.{1,5}/gs) ?? []) {
        (message.content[0] as { text: string }).text += piece;
        yield { type: "text_delta", contentIndex: 0, delta: piece, partial: message };
      }
    }
    for (const [i, call] of (turn.toolCalls ?? []).entries()) {
      const toolCall: ToolCall = {
        type: "toolCall",
        id: call.id ?? `call_${index}_${i}`,
        name: call.name,
        arguments: call.arguments ?? {},
        ...(call.parseError !== undefined && { parseError: call.parseError }),
      };
      message.content.push(toolCall);
    }
    const u = turn.usage ?? {};
    const usage = emptyUsage();
    usage.input = u.input ?? 0;
    usage.output = u.output ?? 0;
    usage.cacheRead = u.cacheRead ?? 0;
    usage.cacheWrite = u.cacheWrite ?? 0;
    usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
    usage.cost.total = u.cost ?? 0;
    usage.cost.output = u.cost ?? 0;
    message.usage = usage;
    message.stopReason = turn.stopReason ?? (turn.toolCalls?.length ? "toolUse" : "stop");
    if (turn.errorMessage) message.errorMessage = turn.errorMessage;
    yield message.stopReason === "error" ? { type: "error", message } : { type: "done", message };
  };
  return { stream, requests, snapshots };
}
