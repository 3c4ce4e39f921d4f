import type {
  AfterToolCallHook,
  BeforeStopHook,
  BeforeToolCallHook,
  PrepareNextTurnHook,
} from "../core/types.ts";
import type { LoadedTask } from "../spec/types.ts";
import { createAfterToolCall } from "./after-tool-call.ts";
import { createBeforeStop } from "./before-stop.ts";
import { createBeforeToolCall } from "./before-tool-call.ts";
import { createPrepareNextTurn } from "./prepare-next-turn.ts";
import type { HookDeps } from "./run-command-hook.ts";

/** The core hook functions of a task; a hook point without rules is left out. */
export interface TaskHooks {
  beforeToolCall?: BeforeToolCallHook;
  afterToolCall?: AfterToolCallHook;
  prepareNextTurn?: PrepareNextTurnHook;
  beforeStop?: BeforeStopHook;
}

/** The hook functions for the core's Agent options, built from the spec's `hooks`. */
export function createHooks(task: LoadedTask, deps: HookDeps): TaskHooks {
  const { hooks, model, thinking } = task.spec;
  const out: TaskHooks = {};
  if (hooks.beforeToolCall.length > 0) out.beforeToolCall = createBeforeToolCall(hooks.beforeToolCall, deps);
  if (hooks.afterToolCall.length > 0) out.afterToolCall = createAfterToolCall(hooks.afterToolCall, deps);
  if (hooks.prepareNextTurn.length > 0) {
    out.prepareNextTurn = createPrepareNextTurn(hooks.prepareNextTurn, deps, {
      model,
      thinking: thinking ?? "off",
    });
  }
  if (hooks.beforeStop.length > 0) out.beforeStop = createBeforeStop(hooks.beforeStop, deps);
  return out;
}
