import { z } from "zod";
import type { ToolParameters } from "../core/types.ts";
import { type ReplayProblem, type ReplaySession, replayProblemsError } from "../providers/replay-format.ts";
import { closest } from "../spec/suggest.ts";

/** What a replayed call is checked against: a tool the run offers. */
export interface ReplayToolSchema {
  name: string;
  parameters: ToolParameters;
  /** The tool's own argument shim (edit's flat `oldText`/`newText`), applied before the schema. */
  prepareArguments?: (args: unknown) => unknown;
  /** `name` is a prefix (`mcp__`): tools known only once the run starts their servers. */
  prefix?: boolean;
}

/**
 * Checks every tool call of a session against the tools the run offers, before the run starts:
 * the name must be one of them and `arguments` must satisfy its schema. Every problem is reported
 * at once, positioned in the file. A call given as `arguments_raw` is left alone (it replays what
 * a model sent, malformed on purpose), and so is a session the recorder wrote (`recorded: true`). Throws `ProviderConfigError` (`bad_replay_file`).
 */
export function checkReplayToolCalls(session: ReplaySession, tools: readonly ReplayToolSchema[]): void {
  // A recording replays a model's mistakes (a made-up tool, bad arguments) as the model made them.
  if (session.recorded) return;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const names = tools.map((tool) => tool.name);
  const at = (path: PropertyKey[]) => session.positionOf?.(path) ?? { line: 0, column: 0 };
  const problems: ReplayProblem[] = [];
  session.turns.forEach((turn, t) => {
    (turn.tool_calls ?? []).forEach((call, c) => {
      const base = ["turns", t, "tool_calls", c];
      if (call.arguments_raw !== undefined) return;
      const tool =
        byName.get(call.name) ?? tools.find((t) => t.prefix === true && call.name.startsWith(t.name));
      if (!tool) {
        const near = closest(call.name, names);
        problems.push({
          ...at([...base, "name"]),
          path: [...base, "name"].join("."),
          message: `the task offers no tool "${call.name}" (it offers ${names.join(", ") || "none"})${near ? `; did you mean "${near}"?` : ""}`,
        });
        return;
      }
      const args = call.arguments ?? {};
      let prepared: unknown = args;
      try {
        prepared = tool.prepareArguments ? tool.prepareArguments(args) : args;
      } catch {
        // The schema below says what is wrong with the arguments as given.
      }
      const parsed = schemaOf(tool.parameters).safeParse(prepared);
      if (parsed.success) return;
      for (const issue of parsed.error.issues) {
        // Issues of a shimmed call are reported where the file has the value (or its call).
        const path = [...base, "arguments", ...issue.path];
        problems.push({
          ...at(path),
          path: path.join("."),
          message: `${call.name}: ${issueText(issue)}`,
        });
      }
    });
  });
  if (problems.length > 0) throw replayProblemsError(session.source ?? "<replay>", problems);
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys")
    return `unknown parameter${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((key) => `"${key}"`).join(", ")}`;
  return issue.message;
}

function schemaOf(parameters: ToolParameters): z.ZodType {
  if (typeof (parameters as { safeParse?: unknown }).safeParse === "function") return parameters as z.ZodType;
  return z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
}
