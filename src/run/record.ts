import { modelLabel } from "../core/format.ts";
import type { Usage } from "../core/types.ts";
import { emptyUsage } from "../core/usage.ts";
import type {
  BlockedCall,
  HookFailure,
  HookRuns,
  ResumedRun,
  RunRecord,
  ToolStats,
} from "../output/types.ts";
import { GIVE_UP_TOOL, type GiveUpDetails } from "./give-up-tool.ts";
import { shortArgs } from "./short-args.ts";
import type { RunEvent } from "./types.ts";

/**
 * Builds the run's record from its events as they happen, so whatever ends the run (a limit, a
 * crash, a signal) the record holds everything up to that moment.
 */
export class RecordCollector {
  readonly toolCalls: Record<string, ToolStats> = {};
  readonly blocked: BlockedCall[] = [];
  readonly hookFailures: HookFailure[] = [];
  /** Keyed by hook point and rule index. */
  readonly hookRuns = new Map<string, HookRuns>();
  readonly models: string[] = [];
  turns = 0;
  usage: Usage = emptyUsage();
  lastAssistantText = "";
  /** Set when the model called give_up: its reason. */
  gaveUp: string | undefined;
  /** Compactions of the conversation so far. */
  compactions = 0;
  /** Model calls answered, and those of them whose provider reported no token usage. */
  readonly modelCalls = { answered: 0, usageMissing: 0 };
  readonly #argsById = new Map<string, unknown>();

  handle(event: RunEvent): void {
    switch (event.type) {
      case "turn_start": {
        this.turns = event.turn;
        const model = modelLabel(event.model);
        if (!this.models.includes(model)) this.models.push(model);
        break;
      }
      case "usage":
        this.usage = event.total;
        break;
      case "message_end":
        if (event.message.role === "assistant") {
          this.modelCalls.answered++;
          if (event.message.usageMissing) this.modelCalls.usageMissing++;
          const text = event.message.content
            .map((part) => (part.type === "text" ? part.text : ""))
            .join("")
            .trim();
          if (text) this.lastAssistantText = text;
        }
        break;
      case "tool_execution_start":
        this.#argsById.set(event.toolCallId, event.args);
        break;
      case "tool_execution_end": {
        if (event.toolName === GIVE_UP_TOOL && !event.isError) {
          this.gaveUp = (event.result.details as GiveUpDetails).reason;
        }
        const stats = this.toolCalls[event.toolName] ?? { calls: 0, errors: 0, blocked: 0, durationMs: 0 };
        this.toolCalls[event.toolName] = stats;
        stats.calls++;
        stats.durationMs += event.durationMs;
        if (event.blocked) stats.blocked++;
        else if (event.isError) stats.errors++;
        if (event.blocked) {
          this.blocked.push({
            tool: event.toolName,
            reason: event.blockReason ?? "blocked",
            turn: this.turns,
            args: shortArgs(event.toolName, this.#argsById.get(event.toolCallId)),
          });
        }
        this.#argsById.delete(event.toolCallId);
        break;
      }
      case "hook_end": {
        const key = `${event.hook}#${event.rule}`;
        const entry = this.hookRuns.get(key) ?? {
          hook: event.hook,
          rule: event.rule,
          command: event.command,
          runs: 0,
          outcomes: {},
          lastOutcome: event.outcome,
          durationMs: 0,
        };
        this.hookRuns.set(key, entry);
        entry.runs++;
        entry.outcomes[event.outcome] = (entry.outcomes[event.outcome] ?? 0) + 1;
        entry.lastOutcome = event.outcome;
        entry.durationMs += event.durationMs;
        break;
      }
      case "compaction":
        this.compactions++;
        break;
      case "hook_failed":
        this.hookFailures.push({
          hook: event.hook,
          ...(event.command !== undefined && { command: event.command }),
          message: event.message,
          ...(event.output !== undefined && { output: event.output }),
        });
        break;
      default:
        break;
    }
  }

  /** Replaces the running total with the final one (which includes the last turn's tool usage). */
  setUsage(usage: Usage): void {
    this.usage = structuredClone(usage);
  }

  toRecord(
    fields: Pick<RunRecord, "taskName" | "description" | "conclusion" | "durationMs"> & {
      reason?: string;
      model: string;
      runUrl?: string;
      notes?: string[];
      runId?: string;
      resumedFrom?: ResumedRun;
      result?: unknown;
    },
  ): RunRecord {
    const notes = [...(fields.notes ?? [])];
    const { answered, usageMissing } = this.modelCalls;
    if (usageMissing > 0) {
      notes.push(
        `The provider reported no token usage for ${usageMissing} of ${answered} model call(s): they count as 0 tokens, and the cost is unknown.`,
      );
    }
    return {
      taskName: fields.taskName,
      description: fields.description,
      conclusion: fields.conclusion,
      ...(fields.reason !== undefined && { reason: fields.reason }),
      model: this.models.at(-1) ?? fields.model,
      models: this.models.length > 0 ? [...this.models] : [fields.model],
      turns: this.turns,
      durationMs: fields.durationMs,
      usage: this.usage,
      toolCalls: this.toolCalls,
      blocked: this.blocked,
      hookFailures: this.hookFailures,
      ...(this.hookRuns.size > 0 && { hookRuns: [...this.hookRuns.values()] }),
      lastAssistantText: this.lastAssistantText,
      ...(notes.length > 0 && { notes }),
      ...(fields.runUrl !== undefined && { runUrl: fields.runUrl }),
      ...(fields.runId !== undefined && { runId: fields.runId }),
      ...(this.compactions > 0 && { compactions: this.compactions }),
      ...(fields.resumedFrom !== undefined && { resumedFrom: fields.resumedFrom }),
      ...(fields.result !== undefined && { result: fields.result }),
    };
  }
}
