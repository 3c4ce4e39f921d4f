import { executeRun } from "./execute-run.ts";
import { finishRun } from "./finish-run.ts";
import { prepareRun } from "./prepare-run.ts";
import type { RunResult, RunTaskOptions } from "./types.ts";

/**
 * Runs one task from spec to outputs, in three phases over one run context: prepare (found wrong
 * here: a bad spec, a missing key or workspace, a sandbox that must run but cannot; an
 * `AgentRunError` of kind `usage` is thrown, exit 2, nothing written), execute (the agent runs;
 * never throws) and finish (the outputs, whatever ended the run). Everything after prepare
 * resolves with a result: the model stopping, a failed check, a limit, a provider failure, an
 * interruption or a crash inside the runner all end with the four output files written and the
 * matching exit code.
 */
export async function runTask(options: RunTaskOptions): Promise<RunResult> {
  const ctx = await prepareRun(options);
  await executeRun(ctx);
  return finishRun(ctx);
}
