import { MCP_PREFIX } from "../mcp/tool-names.ts";
import type { KnownToolName } from "../spec/schema.ts";
import type { TaskSpec } from "../spec/types.ts";
import { bashParameters } from "../tools/bash.ts";
import { editParameters, prepareEditArguments } from "../tools/edit.ts";
import { findParameters } from "../tools/find.ts";
import { grepParameters } from "../tools/grep.ts";
import { lsParameters } from "../tools/ls.ts";
import { readParameters } from "../tools/read.ts";
import { writeParameters } from "../tools/write.ts";
import { createGiveUpTool } from "./give-up-tool.ts";
import type { ReplayToolSchema } from "./replay-check.ts";
import { SUBMIT_RESULT_TOOL } from "./result-state.ts";
import { REVIEW_TOOL, reviewCommentParameters } from "./review-tool.ts";

const BUILT_IN: Record<KnownToolName, ReplayToolSchema> = {
  bash: { name: "bash", parameters: bashParameters },
  read: { name: "read", parameters: readParameters },
  write: { name: "write", parameters: writeParameters },
  edit: { name: "edit", parameters: editParameters, prepareArguments: prepareEditArguments },
  grep: { name: "grep", parameters: grepParameters },
  find: { name: "find", parameters: findParameters },
  ls: { name: "ls", parameters: lsParameters },
};

/**
 * The tools a run of `spec` offers the model, with their parameter schemas, known before any
 * tool is built: the spec's tools, `give_up`, `add_review_comment` with `review.inline`,
 * `submit_result` with `output_schema` and any `mcp__` name with `mcp_servers`.
 * A replay file's calls are checked against these before the run starts.
 */
export function offeredToolSchemas(spec: TaskSpec): ReplayToolSchema[] {
  const giveUp = createGiveUpTool();
  return [
    ...spec.tools.map((tool) => BUILT_IN[tool.name]),
    { name: giveUp.name, parameters: giveUp.parameters },
    ...(spec.review.inline ? [{ name: REVIEW_TOOL, parameters: reviewCommentParameters }] : []),
    // Checked when called: submit_result against the spec's schema (its errors are the model's to
    // fix), MCP tools once their servers list them.
    ...(spec.outputSchema ? [{ name: SUBMIT_RESULT_TOOL, parameters: {} }] : []),
    ...(spec.mcpServers.length > 0 ? [{ name: MCP_PREFIX, parameters: {}, prefix: true }] : []),
  ];
}
