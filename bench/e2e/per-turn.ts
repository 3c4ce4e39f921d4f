/**
 * Per-turn overhead: a 100-turn session of tool calls (read, edit, a trivial bash, write, in
 * turn) through the Anthropic and the OpenAI Responses wire formats, the CLI side by side with the
 * bare loop. Per turn = (wall of the 100-turn session - wall of a one-turn session) / 100, paired
 * run by run, so start-up and the end-of-run outputs cancel out. The runner's overhead is the
 * CLI's figure minus the bare loop's. The bare loop runs bash plainly; the CLI runs it in
 * bubblewrap by default (sandbox: auto), so the Anthropic session is also run with sandbox: off.
 */
import type { Measured } from "./measure.ts";
import { type BenchContext, runBareOnce, runCliOnce } from "./run-cli.ts";
import { DONE, markerFile, toolCycleScript } from "./sessions.ts";
import { type BenchRow, fmt, rowOf, spread } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace, type Wire } from "./workspace.ts";

const TURNS = 100;

/** Target: under 3 ms of runner overhead per turn. */
export const PER_TURN_TARGET_MS = 3;

interface Variant {
  wire: Wire;
  sandbox?: "off";
  label: string;
}

const VARIANTS: Variant[] = [
  { wire: "anthropic", label: "Anthropic" },
  { wire: "openai", label: "OpenAI Responses" },
  { wire: "anthropic", sandbox: "off", label: "Anthropic, sandbox off" },
];

export async function perTurn(ctx: BenchContext, runs: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const bareByWire = new Map<Wire, number[]>();
  for (const variant of VARIANTS) {
    const cli: number[] = [];
    let bare = bareByWire.get(variant.wire);
    const measureBare = bare === undefined;
    bare ??= [];
    for (let run = 0; run < runs; run++) {
      cli.push(slope(await session(ctx, variant, "cli", TURNS), await session(ctx, variant, "cli", 0)));
      if (measureBare)
        bare.push(slope(await session(ctx, variant, "bare", TURNS), await session(ctx, variant, "bare", 0)));
    }
    bareByWire.set(variant.wire, bare);
    const scenario = `per turn, ${variant.label}`;
    const overhead = spread(cli).median - spread(bare).median;
    rows.push(rowOf(scenario, "agent-run ms/turn", cli, undefined, 2));
    if (measureBare) rows.push(rowOf(scenario, "bare loop ms/turn", bare, undefined, 2));
    rows.push({
      scenario,
      measure: "runner overhead ms/turn",
      value: fmt(overhead, 2),
      spread: "agent-run − bare loop, medians",
      target: `< ${PER_TURN_TARGET_MS} ${overhead < PER_TURN_TARGET_MS ? "met" : "MISSED"}`,
    });
  }
  return rows;
}

function slope(long: Measured, short: Measured): number {
  return (long.wallMs - short.wallMs) / TURNS;
}

async function session(
  ctx: BenchContext,
  variant: Variant,
  who: "cli" | "bare",
  turns: number,
): Promise<Measured> {
  const task = taskYaml({ wire: variant.wire, ...(variant.sandbox && { sandbox: variant.sandbox }) });
  const workspace = await tempWorkspace({ "task.yml": task, "main.txt": markerFile(TURNS) });
  const script = turns === 0 ? [DONE] : toolCycleScript(turns);
  const what = `per turn: ${who} ${variant.label}, ${turns} tool turns`;
  if (who === "bare") return runBareOnce(ctx, variant.wire, workspace, script, what);
  const result = await runCliOnce(ctx, workspace, script, { what });
  await expectRun(workspace, turns + 1, turns, what);
  return result;
}
