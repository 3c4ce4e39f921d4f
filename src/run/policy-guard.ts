import type { BeforeToolCallHook } from "../core/types.ts";
import type { ToolSpec } from "../spec/index.ts";
import { checkCommand, type PolicyContext } from "../tools/index.ts";

/**
 * Puts the bash allow/deny policy in front of the spec's own before_tool_call hooks, so a refused
 * command is a blocked call (counted, listed with its reason in the summary, never executed)
 * rather than a tool error. The bash tool keeps its own check as a second line. `context` gives
 * the workspace and the run's protected paths, which redirections and writing programs may not
 * leave or touch.
 */
export function withCommandPolicy(
  tools: ToolSpec[],
  next: BeforeToolCallHook | undefined,
  context: PolicyContext,
): BeforeToolCallHook | undefined {
  const bash = tools.find((tool) => tool.name === "bash");
  const policy = {
    ...(bash?.options.allow && { allow: bash.options.allow }),
    ...(bash?.options.deny && { deny: bash.options.deny }),
  };
  if (!bash || (!policy.allow && !policy.deny)) return next;
  return async (ctx, signal) => {
    if (ctx.toolCall.name === "bash") {
      const command = (ctx.args as { command?: unknown }).command;
      if (typeof command === "string") {
        const verdict = await checkCommand(command, policy, context);
        if (!verdict.allowed) return { block: true, reason: `bash policy: ${verdict.reason}` };
      }
    }
    return next?.(ctx, signal);
  };
}
