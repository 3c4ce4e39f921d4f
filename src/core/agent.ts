import { type LoopState, runAgentLoop } from "./agent-loop.ts";
import { createPromptEmitter } from "./emitter.ts";
import type { AgentEventListener, AgentRunOutcome } from "./events.ts";
import type { StreamFunction } from "./provider.ts";
import type {
  AfterToolCallHook,
  AgentLimits,
  AgentMessage,
  AnyAgentTool,
  BeforeStopHook,
  BeforeToolCallHook,
  ImageContent,
  Model,
  PrepareNextTurnHook,
  RepeatedFailureLimits,
  TextContent,
  ThinkingLevel,
  ToolExecutionMode,
  TransformContextHook,
  Usage,
  UserMessage,
} from "./types.ts";
import { addUsage, emptyUsage } from "./usage.ts";

export interface AgentOptions {
  /** Produces assistant messages; usually a provider's `stream`, or a router over several. */
  stream: StreamFunction;
  model: Model;
  systemPrompt?: string;
  /** Default: "off". */
  thinkingLevel?: ThinkingLevel;
  /** Tools the model sees from the first turn. */
  tools?: AnyAgentTool[];
  /** Tools the model does not see until a tool result names them in `addedToolNames`. */
  availableTools?: AnyAgentTool[];
  /** Default: "parallel". */
  toolExecution?: ToolExecutionMode;
  beforeToolCall?: BeforeToolCallHook;
  afterToolCall?: AfterToolCallHook;
  /** Runs after each turn that continues; may switch model or thinking level. */
  prepareNextTurn?: PrepareNextTurnHook;
  /** Runs after `prepareNextTurn` and sees its changes; may also replace the context. */
  prepareNextTurnWithContext?: PrepareNextTurnHook;
  /** Runs when the model wants to stop; may send it back to work or fail the run. */
  beforeStop?: BeforeStopHook;
  /**
   * Shapes the messages of each request (pi-mono's name): compaction, pruning, injected context.
   * The transcript in `state.messages` stays whole. See `TransformContextHook`.
   */
  transformContext?: TransformContextHook;
  /**
   * The same failing call made again and again: the model is told at `warnAt` (default 3), the
   * run ends as a failure at `failAt` (default 5). `false` turns this off.
   */
  repeatedFailures?: RepeatedFailureLimits | false;
  limits?: AgentLimits;
  /** Earlier transcript to continue from. */
  messages?: AgentMessage[];
  /** Clock in ms. Default: Date.now. */
  now?: () => number;
}

export interface AgentState extends LoopState {
  isRunning: boolean;
  /** Usage across every prompt of this agent, tool-reported usage included. */
  usage: Usage;
}

/**
 * The agent: a transcript, a model, tools and hooks. `prompt()` drives the loop until the model
 * stops; subscribers see every event as it happens.
 */
export class Agent {
  readonly state: AgentState;
  readonly #options: AgentOptions;
  readonly #listeners = new Set<AgentEventListener>();
  #controller: AbortController | undefined;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.state = {
      systemPrompt: options.systemPrompt ?? "",
      model: options.model,
      thinkingLevel: options.thinkingLevel ?? "off",
      tools: [...(options.tools ?? [])],
      messages: [...(options.messages ?? [])],
      isRunning: false,
      usage: emptyUsage(),
    };
  }

  /**
   * Listens to every event; returns the unsubscribe function. A listener that throws or rejects is
   * reported once (a `warning` event) and never changes the run.
   */
  subscribe(listener: AgentEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Sends a user message and runs until the model stops, a tool terminates, a limit is hit, the
   * provider fails or the run is aborted (by `abort()` or `options.signal`). Resolves, never
   * rejects, for all of those.
   */
  async prompt(
    input: string | (TextContent | ImageContent)[],
    options: { signal?: AbortSignal } = {},
  ): Promise<AgentRunOutcome> {
    if (this.state.isRunning) throw new Error("Agent.prompt() called while a prompt is already running");
    const controller = new AbortController();
    this.#controller = controller;
    const signal = options.signal ? AbortSignal.any([controller.signal, options.signal]) : controller.signal;
    const now = this.#options.now ?? Date.now;
    const userMessage: UserMessage = { role: "user", content: input, timestamp: now() };
    const prompt =
      typeof input === "string" ? input : input.map((p) => (p.type === "text" ? p.text : "")).join("");

    this.state.isRunning = true;
    const emitter = createPromptEmitter(this.#listeners);
    emitter.emit({ type: "agent_start", prompt });
    try {
      const outcome = await runAgentLoop(
        this.state,
        {
          stream: this.#options.stream,
          toolExecution: this.#options.toolExecution ?? "parallel",
          availableTools: [...(this.#options.tools ?? []), ...(this.#options.availableTools ?? [])],
          ...pick(this.#options, [
            "beforeToolCall",
            "afterToolCall",
            "prepareNextTurn",
            "prepareNextTurnWithContext",
            "beforeStop",
            "transformContext",
          ]),
          repeatedFailures: this.#options.repeatedFailures ?? {},
          limits: this.#options.limits ?? {},
          now,
        },
        userMessage,
        signal,
        emitter.emit,
      );
      addUsage(this.state.usage, outcome.usage);
      emitter.emit({ type: "agent_end", outcome });
      return outcome;
    } finally {
      // Whatever still calls back (a tool's late progress, a hook finishing after an abort) is dropped.
      emitter.close();
      this.state.isRunning = false;
      this.#controller = undefined;
    }
  }

  /** Aborts the running prompt: the provider call, every running tool and hook get the signal. */
  abort(reason?: unknown): void {
    this.#controller?.abort(reason);
  }
}

function pick<T extends object, K extends keyof T>(source: T, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
