import { errorText } from "./errors.ts";
import type { AgentEvent, AgentEventListener } from "./events.ts";

/** One prompt's event delivery: `emit` until `close`, then nothing. */
export interface PromptEmitter {
  emit(event: AgentEvent): void;
  /** Called right after `agent_end`: later events (a tool's late update, a stray callback) are dropped. */
  close(): void;
}

/**
 * Delivers events to the listeners of the moment, isolating each: a listener that throws, or
 * returns a promise that rejects, never changes the run. Its first failure is reported once, as a
 * `warning` event to every listener while the prompt runs, or through `process.emitWarning` when
 * it comes after `agent_end` (nothing is emitted after it); later failures of that listener are
 * ignored.
 */
export function createPromptEmitter(listeners: ReadonlySet<AgentEventListener>): PromptEmitter {
  const reported = new WeakSet<AgentEventListener>();
  let open = true;

  const report = (listener: AgentEventListener, event: AgentEvent, error: unknown) => {
    if (reported.has(listener)) return;
    reported.add(listener);
    const message = `an event listener failed on "${event.type}" (ignored; the run goes on, later failures of this listener are not reported): ${errorText(error)}`;
    if (open) emit({ type: "warning", message });
    else process.emitWarning(message, { code: "AGENT_RUN_LISTENER" });
  };

  const emit = (event: AgentEvent) => {
    if (!open) return;
    for (const listener of [...listeners]) {
      try {
        const returned: unknown = listener(event);
        if (isThenable(returned))
          returned.then(undefined, (error: unknown) => report(listener, event, error));
      } catch (error) {
        report(listener, event, error);
      }
    }
  };

  return {
    emit,
    close: () => {
      open = false;
    },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}
