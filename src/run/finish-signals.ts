/**
 * When the finish phase must hurry. CI systems stop a job with a signal and kill it a few seconds
 * later (GitHub: SIGINT, SIGTERM 7.5 s later, SIGKILL 2.5 s after that; docker: SIGTERM, SIGKILL
 * 10 s later). The finish phase never lets a signal end the process before the outputs are
 * written; it becomes urgent (writes the best it has at once, then completes it if it can) on a
 * second stop signal, on the caller's `hurry`, or URGENT_AFTER_MS after the first stop signal.
 * These guarantees hold whoever calls `runTask`: the phase listens for the signals itself.
 */
import type { RunContext } from "./run-context.ts";

/** After the first stop signal, the finish phase writes what it has this long later, done or not: 5 s. */
export const URGENT_AFTER_MS = 5000;

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

export interface FinishUrgency {
  /** Resolves when the phase must write what it has now. */
  readonly urgent: Promise<void>;
  /** Stops listening; a signal nobody else listens for is raised again (its default action ends the process). */
  release(): void;
}

/** Listens for stop signals during the finish phase (see the module comment). */
export function holdStopSignals(ctx: RunContext): FinishUrgency {
  let fire: () => void = () => {};
  const urgent = new Promise<void>((resolve) => {
    fire = resolve;
  });
  let timer: NodeJS.Timeout | undefined;
  const startClock = (since: number) => {
    if (timer) return;
    timer = setTimeout(fire, Math.max(0, since + URGENT_AFTER_MS - Date.now()));
    timer.unref();
  };
  if (ctx.interruptedAt !== undefined) startClock(ctx.interruptedAt);
  const hurry = ctx.options.hurry;
  if (hurry?.aborted) fire();
  hurry?.addEventListener("abort", fire, { once: true });

  const received: NodeJS.Signals[] = [];
  const onSignal = (signal: NodeJS.Signals) => {
    received.push(signal);
    if (ctx.interruptedAt === undefined && received.length === 1) {
      ctx.interruptedAt = Date.now();
      startClock(ctx.interruptedAt);
    } else {
      fire();
    }
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);

  return {
    urgent,
    release() {
      clearTimeout(timer);
      hurry?.removeEventListener("abort", fire);
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
      const first = received[0];
      if (first && process.listenerCount(first) === 0) process.kill(process.pid, first);
    },
  };
}
