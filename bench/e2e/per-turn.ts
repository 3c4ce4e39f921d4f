/**
 * Per-turn overhead: a 100-turn session of tool calls (read, edit, a trivial bash, write, in
 * turn) through the Anthropic and the OpenAI Responses wire formats, the CLI side by side with the
 * bare loop. Per turn = (wall of the 100-turn session - wall of a one-turn session) / 100, paired
 * run by run, so start-up and the end-of-run outputs cancel out. The runner's overhead is the
 * CLI's figure minus the bare loop's.
 */
import type { Measured } from "./measure.ts";
import { type BenchContext, runBareOnce, runCliOnce } from "./run-cli.ts";
import { DONE, markerFile, toolCycleScript } from "./sessions.ts";
import { type BenchRow, fmt, rowOf, spread } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace, type Wire } from "./workspace.ts";

const TURNS = 100;

/** Target: under 3 ms of runner overhead per turn. */
export const PER_TURN_TARGET_MS = 3;

export async function perTurn(ctx: BenchContext, runs: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const wire of ["anthropic", "openai"] as const) {
    const cli: number[] = [];
    const bare: number[] = [];
    for (let run = 0; run < runs; run++) {
      cli.push(slope(await session(ctx, wire, "cli", TURNS), await session(ctx, wire, "cli", 0)));
      bare.push(slope(await session(ctx, wire, "bare", TURNS), await session(ctx, wire, "bare", 0)));
    }
    const overhead = spread(cli).median - spread(bare).median;
    const label = wire === "anthropic" ? "Anthropic" : "OpenAI Responses";
    rows.push(rowOf(`per turn, ${label}`, "agent-run ms/turn", cli, undefined, 2));
    rows.push(rowOf(`per turn, ${label}`, "bare loop ms/turn", bare, undefined, 2));
    rows.push({
      scenario: `per turn, ${label}`,
      measure: "runner overhead ms/turn",
      value: fmt(overhead, 2),
      spread: "difference of the medians",
      target: `< ${PER_TURN_TARGET_MS} ${overhead < PER_TURN_TARGET_MS ? "met" : "MISSED"}`,
    });
  }
  return rows;
}

function slope(long: Measured, short: Measured): number {
  return (long.wallMs - short.wallMs) / TURNS;
}

async function session(ctx: BenchContext, wire: Wire, who: "cli" | "bare", turns: number): Promise<Measured> {
  const workspace = await tempWorkspace({ "task.yml": taskYaml({ wire }), "main.txt": markerFile(TURNS) });
  const script = turns === 0 ? [DONE] : toolCycleScript(turns);
  const what = `per turn: ${who} ${wire} ${turns} tool turns`;
  if (who === "bare") return runBareOnce(ctx, wire, workspace, script, what);
  const result = await runCliOnce(ctx, workspace, script, { what });
  await expectRun(workspace, turns + 1, turns, what);
  return result;
}
