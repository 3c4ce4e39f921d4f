/**
 * When a run starts what its first tool call will need (the sandbox session: bwrap and its Node
 * server, 100-180 ms on a 2-core runner; the bash policy's shell parser, ~25 ms): in the time the
 * model takes to answer, not after its answer. A model call still unanswered PRESTART_AFTER_MS
 * after its turn began is a model thinking, and the start happens in that time; a tool call that
 * starts streaming sooner starts it at once. A reply that is over within that time with text only
 * (a quick answer, a replay) starts nothing: a text-only run pays for neither.
 */
import type { AgentEvent } from "../core/events.ts";

/** How long a model call goes unanswered before the run starts what tools need: 150 ms. */
export const PRESTART_AFTER_MS = 150;

/**
 * Calls `start` once, as the module comment says, for the events `subscribe` delivers; stops
 * listening once `start` ran or the agent ended.
 */
export function prestartWhileModelThinks(
  subscribe: (listener: (event: AgentEvent) => void) => () => void,
  start: () => void,
  afterMs: number = PRESTART_AFTER_MS,
): void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const disarm = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const stop = () => {
    stopped = true;
    disarm();
    unsubscribe();
  };
  const startNow = () => {
    stop();
    start();
  };
  const unsubscribe = subscribe((event) => {
    if (stopped) return;
    if (event.type === "turn_start") {
      disarm();
      timer = setTimeout(startNow, afterMs);
      // A run that ends meanwhile is not held open for it.
      timer.unref();
    } else if (event.type === "message_update" && event.event.type === "toolcall_delta") {
      startNow();
    } else if (event.type === "message_end" && event.message.role === "assistant") {
      disarm();
    } else if (event.type === "agent_end") {
      stop();
    }
  });
}
