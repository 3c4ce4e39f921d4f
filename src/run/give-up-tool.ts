import { z } from "zod";
import type { AgentTool } from "../core/types.ts";

export const GIVE_UP_TOOL = "give_up";

const parameters = z.strictObject({
  reason: z.string().min(1).describe("Why the task cannot be done, for the humans reading the PR comment"),
});

export interface GiveUpDetails {
  reason: string;
}

/**
 * The model's honest way out: ends the run as a failure (exit code 1) with its reason, instead of
 * stopping as if the task were done. Always offered by the runner; it changes nothing.
 */
export function createGiveUpTool(): AgentTool<z.infer<typeof parameters>, GiveUpDetails> {
  return {
    name: GIVE_UP_TOOL,
    label: "Give up",
    description:
      "Call this only when the task cannot be completed (e.g. it needs access, information or changes you are not allowed to make). The run ends as a failure with your reason. Do not call it for a task you completed.",
    parameters,
    executionMode: "sequential",
    async execute(_id, params) {
      return {
        content: [{ type: "text", text: `The run ends as a failure: ${params.reason}` }],
        details: { reason: params.reason },
        terminate: true,
      };
    },
  };
}
