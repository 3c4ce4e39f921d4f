/**
 * The execute phase's side of the turn-end checkpoints (src/output/checkpoints.ts): a checkpoint
 * after each turn in which a tool that may change files ran (taken once the next model call has
 * gone on a moment), and tools and before_stop commands that drop a checkpoint not begun yet and
 * wait for one in flight, so that it records one moment of the workspace rather than a file
 * half-written by the next command.
 */
import type { AgentEvent } from "../core/events.ts";
import type { AnyAgentTool, BeforeStopHook } from "../core/types.ts";
import type { Checkpoints } from "../output/index.ts";

/** Tools that never change a file: a turn that ran only these takes no checkpoint. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(["read", "grep", "find", "ls", "give_up"]);

/** An event listener taking a checkpoint at the end of each turn that ran a tool not in READ_ONLY_TOOLS. */
export function checkpointAtTurnEnd(checkpoints: Checkpoints): (event: AgentEvent) => void {
  let changed = false;
  return (event) => {
    if (event.type === "tool_execution_end" && !event.blocked && !READ_ONLY_TOOLS.has(event.toolName)) {
      changed = true;
    } else if (event.type === "turn_end" && changed) {
      changed = false;
      checkpoints.take(event.turn);
    }
  };
}

/**
 * The wait for the workspace snapshot of whatever may change a file, which remembers that it was
 * asked for: a run that ends without anyone having waited changed nothing (see RunContext.unchanged).
 */
export interface SnapshotWait {
  wait(): Promise<unknown>;
  readonly waited: boolean;
}

export function snapshotWait(snapshotted: Promise<unknown>): SnapshotWait {
  const state = {
    waited: false,
    wait: () => {
      state.waited = true;
      return snapshotted;
    },
  };
  return state;
}

/**
 * `tools`, each waiting for the workspace snapshot (`snapshotted`: the first model call goes out
 * while it is taken, and no tool may change a file before it has them all) and holding the
 * checkpoints (see Checkpoints.hold) before it runs. Tools in READ_ONLY_TOOLS do neither: they
 * change no file, so a first turn that only reads does not wait for the snapshot's git (their
 * command hooks still do, see afterSnapshot).
 */
export function waitingForCheckpoints(
  tools: AnyAgentTool[],
  checkpoints: Checkpoints,
  snapshotted: SnapshotWait,
): AnyAgentTool[] {
  return tools.map((tool) =>
    READ_ONLY_TOOLS.has(tool.name)
      ? tool
      : {
          ...tool,
          execute: async (...args: Parameters<AnyAgentTool["execute"]>) => {
            await snapshotted.wait();
            await checkpoints.hold();
            return tool.execute(...args);
          },
        },
  );
}

/** `hook` (which may run commands), run once the workspace snapshot is taken. */
export function afterSnapshot<Args extends unknown[], Result>(
  hook: ((...args: Args) => Result | Promise<Result>) | undefined,
  snapshotted: SnapshotWait,
): ((...args: Args) => Promise<Result>) | undefined {
  if (!hook) return undefined;
  return async (...args) => {
    await snapshotted.wait();
    return hook(...args);
  };
}

/** `hook`, after the workspace snapshot and holding the checkpoints before its commands run. */
export function beforeStopWaiting(
  hook: BeforeStopHook | undefined,
  checkpoints: Checkpoints,
  snapshotted: SnapshotWait,
): BeforeStopHook | undefined {
  if (!hook) return undefined;
  return async (ctx, signal) => {
    await snapshotted.wait();
    await checkpoints.hold();
    return hook(ctx, signal);
  };
}

/**
 * Checkpoints of a snapshot still being taken: calls made before it is there wait for it (a turn
 * ends only after its tools, which wait for it too, so in practice only `hold` and `dispose` do).
 * A failed snapshot has none: `hold` resolves, the rest do nothing.
 */
export function checkpointsOnceReady(ready: Promise<Checkpoints>): Checkpoints {
  let real: Checkpoints | undefined;
  const settled = ready.then(
    (checkpoints) => {
      real = checkpoints;
      return checkpoints;
    },
    () => undefined,
  );
  return {
    take: (turn, options) => {
      if (real) real.take(turn, options);
      else void settled.then((checkpoints) => checkpoints?.take(turn, options));
    },
    hold: () => settled.then((checkpoints) => checkpoints?.hold()),
    settle: () => settled.then((checkpoints) => checkpoints?.settle()),
    latest: () => real?.latest(),
    patchFor: (tree) => real?.patchFor(tree),
    dispose: (keep) => settled.then((checkpoints) => checkpoints?.dispose(keep)),
  };
}
