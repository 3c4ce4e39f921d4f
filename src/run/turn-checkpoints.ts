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

/** `tools`, each holding the checkpoints (see Checkpoints.hold) before it runs. */
export function waitingForCheckpoints(tools: AnyAgentTool[], checkpoints: Checkpoints): AnyAgentTool[] {
  return tools.map((tool) => ({
    ...tool,
    execute: async (...args: Parameters<AnyAgentTool["execute"]>) => {
      await checkpoints.hold();
      return tool.execute(...args);
    },
  }));
}

/** `hook`, holding the checkpoints before its commands run. */
export function beforeStopWaiting(
  hook: BeforeStopHook | undefined,
  checkpoints: Checkpoints,
): BeforeStopHook | undefined {
  if (!hook) return undefined;
  return async (ctx, signal) => {
    await checkpoints.hold();
    return hook(ctx, signal);
  };
}
