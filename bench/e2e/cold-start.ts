/**
 * Cold start of the bundled CLI: `agent-run --version`, and a one-turn task whose only reply is
 * text (spec load, provider SDK, one streamed request, the four outputs). Wall time and peak RSS.
 */
import { expectExit, measure } from "./measure.ts";
import { type BenchContext, runCliOnce } from "./run-cli.ts";
import { DONE } from "./sessions.ts";
import { type BenchRow, rowOf } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace } from "./workspace.ts";

/** Targets, ms: `--version` and a one-turn task. */
export const COLD_START_TARGET_MS = { version: 150, oneTurn: 400 };

export async function coldStart(ctx: BenchContext, runs: number): Promise<BenchRow[]> {
  const version = { wall: [] as number[], rss: [] as number[] };
  const oneTurn = { wall: [] as number[], rss: [] as number[] };
  // One unmeasured run of each warms the page cache, as a second CI step would find it.
  for (let run = -1; run < runs; run++) {
    const v = await measure(ctx.node, [ctx.bundle.cli, "--version"]);
    expectExit(v, 0, "cold start: --version");
    const workspace = await tempWorkspace({ "task.yml": taskYaml({ wire: "anthropic" }) });
    const t = await runCliOnce(ctx, workspace, [DONE], { what: "cold start: one-turn task" });
    await expectRun(workspace, 1, 0, "cold start: one-turn task");
    if (run < 0) continue;
    version.wall.push(v.wallMs);
    oneTurn.wall.push(t.wallMs);
    if (v.peakRssKb !== undefined) version.rss.push(v.peakRssKb / 1024);
    if (t.peakRssKb !== undefined) oneTurn.rss.push(t.peakRssKb / 1024);
  }
  const rows = [
    rowOf("cold start", "--version wall ms", version.wall, { below: COLD_START_TARGET_MS.version }),
    rowOf("cold start", "one-turn task wall ms", oneTurn.wall, { below: COLD_START_TARGET_MS.oneTurn }),
  ];
  if (version.rss.length > 0) rows.push(rowOf("cold start", "--version peak RSS MB", version.rss));
  if (oneTurn.rss.length > 0) rows.push(rowOf("cold start", "one-turn task peak RSS MB", oneTurn.rss));
  return rows;
}
