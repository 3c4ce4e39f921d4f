/**
 * Cold start of the bundled CLI: `agent-run --version`, and a one-turn task whose only reply is
 * text (spec load, provider SDK, one streamed request, the four outputs), beside the bare loop
 * doing the same request. Wall time, CPU time, peak RSS, and the two waits a user sees: start →
 * first model request and last request → exit, each also as a ratio to the bare loop's.
 */
import { expectExit, measure } from "./measure.ts";
import { type BenchContext, runBareOnce, runCliOnce } from "./run-cli.ts";
import { DONE } from "./sessions.ts";
import { type BenchRow, ratioRow, rowOf } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace } from "./workspace.ts";

/** Targets, ms: `--version` and a one-turn task. */
export const COLD_START_TARGET_MS = { version: 150, oneTurn: 400 };

/** Targets as ratios to the bare loop (issue 18): start → first request, last request → exit. */
export const RATIO_TARGET = { firstRequest: 2, lastRequestToExit: 1.5 };

interface Series {
  wall: number[];
  cpu: number[];
  rss: number[];
  first: number[];
  last: number[];
}

const series = (): Series => ({ wall: [], cpu: [], rss: [], first: [], last: [] });

/**
 * What GitHub sets on a hosted runner, whose machine goes with the job, and on a self-hosted one:
 * the same run otherwise, so the two rows differ by the caches only.
 */
const GITHUB_HOSTED = { GITHUB_ACTIONS: "true", RUNNER_ENVIRONMENT: "github-hosted" };
const SELF_HOSTED = { GITHUB_ACTIONS: "true", RUNNER_ENVIRONMENT: "self-hosted" };

/**
 * The one-turn task on a fresh machine: a temp folder of its own, so no compile cache to read and
 * one for the run to write at its exit (unless `env` says no later run will read it).
 */
async function freshMachineRun(ctx: BenchContext, env: NodeJS.ProcessEnv, what: string) {
  const workspace = await tempWorkspace({ "task.yml": taskYaml({ wire: "anthropic" }) });
  const tmp = await tempWorkspace();
  const run = await runCliOnce(ctx, workspace, [DONE], { what, env: { ...env, TMPDIR: tmp } });
  await expectRun(workspace, 1, 0, what);
  return run;
}

export async function coldStart(ctx: BenchContext, runs: number): Promise<BenchRow[]> {
  const version = series();
  const oneTurn = series();
  const bare = series();
  const fresh = series();
  const freshHosted = series();
  // One unmeasured run of each warms the page cache (and the compile cache), as a second CI step
  // on the same machine would find them.
  for (let run = -1; run < runs; run++) {
    const v = await measure(ctx.node, [ctx.bundle.cli, "--version"]);
    expectExit(v, 0, "cold start: --version");
    const workspace = await tempWorkspace({ "task.yml": taskYaml({ wire: "anthropic" }) });
    const t = await runCliOnce(ctx, workspace, [DONE], { what: "cold start: one-turn task" });
    await expectRun(workspace, 1, 0, "cold start: one-turn task");
    const bareWorkspace = await tempWorkspace();
    const b = await runBareOnce(ctx, "anthropic", bareWorkspace, [DONE], "cold start: bare loop");
    const f = await freshMachineRun(ctx, SELF_HOSTED, "cold start: a fresh self-hosted runner");
    const h = await freshMachineRun(ctx, GITHUB_HOSTED, "cold start: a fresh GitHub-hosted runner");
    if (run < 0) continue;
    version.wall.push(v.wallMs);
    if (v.peakRssKb !== undefined) version.rss.push(v.peakRssKb / 1024);
    for (const [into, got] of [
      [oneTurn, t],
      [bare, b],
      [fresh, f],
      [freshHosted, h],
    ] as const) {
      into.wall.push(got.wallMs);
      into.first.push(got.firstRequestMs);
      into.last.push(got.lastRequestToExitMs);
      if (got.cpuMs !== undefined) into.cpu.push(got.cpuMs);
      if (got.peakRssKb !== undefined) into.rss.push(got.peakRssKb / 1024);
    }
  }
  const s = "cold start";
  const rows = [
    rowOf(s, "--version wall ms", version.wall, { below: COLD_START_TARGET_MS.version }),
    rowOf(s, "one-turn task wall ms", oneTurn.wall, { below: COLD_START_TARGET_MS.oneTurn }),
    rowOf(s, "bare loop one-turn wall ms", bare.wall),
    rowOf(s, "one-turn start → first request ms", oneTurn.first),
    rowOf(s, "bare loop start → first request ms", bare.first),
    ratioRow(s, "start → first request, × bare loop", oneTurn.first, bare.first, RATIO_TARGET.firstRequest),
    rowOf(s, "one-turn last request → exit ms", oneTurn.last),
    rowOf(s, "bare loop last request → exit ms", bare.last),
    ratioRow(s, "last request → exit, × bare loop", oneTurn.last, bare.last, RATIO_TARGET.lastRequestToExit),
    rowOf(s, "fresh machine: start → first request ms", fresh.first),
    rowOf(s, "fresh self-hosted runner: last request → exit ms (caches written)", fresh.last),
    rowOf(s, "fresh GitHub-hosted runner: last request → exit ms (none written)", freshHosted.last),
  ];
  if (oneTurn.cpu.length > 0 && bare.cpu.length > 0) {
    rows.push(rowOf(s, "one-turn task CPU ms", oneTurn.cpu));
    rows.push(rowOf(s, "bare loop one-turn CPU ms", bare.cpu));
    rows.push(ratioRow(s, "one-turn CPU, × bare loop", oneTurn.cpu, bare.cpu));
  }
  if (version.rss.length > 0) rows.push(rowOf(s, "--version peak RSS MB", version.rss));
  if (oneTurn.rss.length > 0) rows.push(rowOf(s, "one-turn task peak RSS MB", oneTurn.rss));
  return rows;
}
