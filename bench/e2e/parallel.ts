/**
 * Parallel tool execution: one turn of 6 bash calls of `sleep 1`, in parallel mode (near 1 s) and
 * sequential mode (near 6 s). The figure is the tool turn as the model sees it: from the mock
 * receiving the request that returns the calls to it receiving the next one (the calls, the
 * runner's bookkeeping around them and the next request).
 */
import type { MockReply, RecordedRequest } from "../../test/mock-llm/server.ts";
import { type BenchContext, runCliOnce } from "./run-cli.ts";
import { fanOutScript } from "./sessions.ts";
import { type BenchRow, rowOf } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace } from "./workspace.ts";

const CALLS = 6;
const CALL_MS = 1000;

/** Parallel mode's target: within 15% of the longest call. */
export const PARALLEL_TARGET_MS = CALL_MS * 1.15;

export async function parallel(
  ctx: BenchContext,
  runs: { parallel: number; sequential: number },
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const execution of ["parallel", "sequential"] as const) {
    const turn: number[] = [];
    for (let run = 0; run < runs[execution]; run++) turn.push(await toolTurnMs(ctx, execution));
    rows.push(
      rowOf(
        `${CALLS} × sleep 1, ${execution}`,
        "tool turn wall ms",
        turn,
        execution === "parallel"
          ? { below: PARALLEL_TARGET_MS, label: `< ${PARALLEL_TARGET_MS}` }
          : undefined,
      ),
    );
  }
  return rows;
}

async function toolTurnMs(ctx: BenchContext, execution: "parallel" | "sequential"): Promise<number> {
  const workspace = await tempWorkspace({ "task.yml": taskYaml({ wire: "anthropic", execution }) });
  const arrived: number[] = [];
  const replies = fanOutScript("sleep 1", CALLS) as MockReply[];
  const what = `${CALLS} × sleep 1, ${execution}`;
  await runCliOnce(
    ctx,
    workspace,
    (index: number, _request: RecordedRequest) => {
      arrived[index] = performance.now();
      return replies[Math.min(index, replies.length - 1)] as MockReply;
    },
    { what },
  );
  await expectRun(workspace, 2, CALLS, what);
  return (arrived[1] as number) - (arrived[0] as number);
}
