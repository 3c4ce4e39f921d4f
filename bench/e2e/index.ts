/**
 * The end-to-end suite (issue 8): builds the bundles from the working tree, then runs each scenario
 * against the mock LLM on loopback (zero latency) and prints one Markdown table. The last stdout
 * line is `BENCH_ROWS <json>` for bench/run.ts. Exits 1 when a scenario broke (the CLI exited
 * non-zero, a run did not do what it was scripted to do); a missed target is reported, not fatal.
 * Run: `node bench/e2e/index.ts [scenario…]` (names: cold, session, turn, parallel, big, workspace, repository, long, compaction, action).
 */
import { rm } from "node:fs/promises";
import { actionStart } from "./action-start.ts";
import { bigOutput } from "./big-output.ts";
import { bigRepository, bigWorkspace } from "./big-workspace.ts";
import { buildBundle } from "./bundle.ts";
import { coldStart } from "./cold-start.ts";
import { compaction } from "./compaction.ts";
import { longSession } from "./long-session.ts";
import { canMeasureRss, GNU_TIME } from "./measure.ts";
import { parallel } from "./parallel.ts";
import { perTurn } from "./per-turn.ts";
import type { BenchContext } from "./run-cli.ts";
import { sessionStart } from "./session-start.ts";
import { type BenchRow, markdownTable } from "./stats.ts";
import { removeWorkspaces } from "./workspace.ts";

/** Runs per scenario: fewer where one run takes seconds, so the whole suite stays near 3 minutes. */
export const RUNS = {
  cold: 10,
  session: 10,
  turn: 5,
  parallel: 3,
  sequential: 2,
  big: 3,
  workspace: 3,
  repository: 3,
  long: 1,
  action: 5,
  compaction: 1,
};

const SCENARIOS: Record<string, (ctx: BenchContext) => Promise<BenchRow[]>> = {
  cold: (ctx) => coldStart(ctx, RUNS.cold),
  session: (ctx) => sessionStart(ctx, RUNS.session),
  turn: (ctx) => perTurn(ctx, RUNS.turn),
  parallel: (ctx) => parallel(ctx, { parallel: RUNS.parallel, sequential: RUNS.sequential }),
  big: (ctx) => bigOutput(ctx, RUNS.big),
  workspace: (ctx) => bigWorkspace(ctx, RUNS.workspace),
  repository: (ctx) => bigRepository(ctx, RUNS.repository),
  long: (ctx) => longSession(ctx, [100, 500]),
  compaction: (ctx) => compaction(ctx),
  action: (ctx) => actionStart(ctx, RUNS.action),
};

const wanted = process.argv.slice(2);
for (const name of wanted) if (!(name in SCENARIOS)) throw new Error(`unknown scenario "${name}"`);

if (!canMeasureRss()) console.error(`peak RSS not measured: ${GNU_TIME} (GNU time) is missing`);
const bundle = await buildBundle();
console.error(`bundles built from the working tree in ${bundle.buildMs.toFixed(0)} ms: ${bundle.dir}`);
const ctx: BenchContext = { bundle, node: process.execPath };
const rows: BenchRow[] = [];
let broken = 0;
for (const [name, scenario] of Object.entries(SCENARIOS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const started = performance.now();
  try {
    const got = await scenario(ctx);
    rows.push(...got);
    console.error(`${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    broken++;
    console.error(`${name}: BROKEN: ${error instanceof Error ? error.message : String(error)}`);
    rows.push({ scenario: name, measure: "BROKEN", value: "", spread: "", target: "" });
  } finally {
    await removeWorkspaces();
  }
}
await rm(bundle.dir, { recursive: true, force: true });
console.log(`Node ${process.version}, ${process.platform}/${process.arch}; bundled CLI and action\n`);
console.log(markdownTable(rows));
console.log(`BENCH_ROWS ${JSON.stringify(rows)}`);
if (broken > 0) process.exitCode = 1;
