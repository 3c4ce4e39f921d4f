export { createAfterToolCall } from "./after-tool-call.ts";
export { createBeforeStop } from "./before-stop.ts";
export { createBeforeToolCall, MAX_REASON_CHARS } from "./before-tool-call.ts";
export { createHooks, type TaskHooks } from "./create-hooks.ts";
export type { HookEvent, HookOutcome, HookPoint } from "./events.ts";
export { callPath, commandMatches, matchesCall } from "./match.ts";
export { createPrepareNextTurn } from "./prepare-next-turn.ts";
export {
  type CommandWrapper,
  HOOK_MAX_BUFFER,
  HOOK_OUTPUT_MAX_BYTES,
  HOOK_OUTPUT_MAX_LINES,
  type HookCommand,
  type HookDeps,
  runCommandHook,
} from "./run-command-hook.ts";
