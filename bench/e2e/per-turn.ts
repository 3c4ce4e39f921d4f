/**
 * Per-turn overhead: a 100-turn session of tool calls (read, edit, a trivial bash, write, in
 * turn) through the Anthropic and the OpenAI Responses wire formats, the CLI side by side with the
 * bare loop. Per turn = (wall of the 100-turn session - wall of a one-turn session) / 100, paired
 * run by run, so start-up and the end-of-run outputs cancel out. The runner's overhead is the
 * CLI's figure minus the bare loop's, in wall time and in CPU time (user + system, children
 * included), which other work on a shared machine disturbs less. The bare loop runs bash plainly;
 * the CLI runs it in bubblewrap by default (sandbox: auto), so the Anthropic session is also run
 * with sandbox: off.
 */
import { detectSandbox } from "../../src/sandbox/index.ts";
import type { Measured } from "./measure.ts";
import { type BenchContext, type RequestTimes, runBareOnce, runCliOnce } from "./run-cli.ts";
import { DONE, markerFile, toolCycleScript } from "./sessions.ts";
import { type BenchRow, fmt, ratioRow, rowOf, spread } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace, type Wire } from "./workspace.ts";

const TURNS = 100;

/** Target: under 3 ms of runner overhead per turn. */
export const PER_TURN_TARGET_MS = 3;

/**
 * Targets as ratios to the bare loop (issue 18): agent-run's time per turn with the sandbox on,
 * and last request → exit of the 100-turn session (its patch is not empty).
 */
export const PER_TURN_RATIO_TARGET = { perTurn: 1.5, lastRequestToExit: 1.5 };

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

interface Slopes {
  wall: number[];
  cpu: number[];
  /** Last request → exit of the long session, ms. */
  last: number[];
}

export async function perTurn(ctx: BenchContext, runs: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // Without bubblewrap (a fresh machine) `sandbox: auto` runs bash unsandboxed, with a warning the
  // bench does not show: the rows say so, and the sandboxed target is not judged on them.
  const bubblewrap = await detectSandbox();
  if (!bubblewrap.available) console.error(`per turn: bash runs unsandboxed: ${bubblewrap.reason}`);
  const bareByWire = new Map<Wire, Slopes>();
  for (const variant of VARIANTS) {
    const cli: Slopes = { wall: [], cpu: [], last: [] };
    let bare = bareByWire.get(variant.wire);
    const measureBare = bare === undefined;
    bare ??= { wall: [], cpu: [], last: [] };
    for (let run = 0; run < runs; run++) {
      addSlope(cli, await session(ctx, variant, "cli", TURNS), await session(ctx, variant, "cli", 0));
      if (measureBare)
        addSlope(bare, await session(ctx, variant, "bare", TURNS), await session(ctx, variant, "bare", 0));
    }
    bareByWire.set(variant.wire, bare);
    const unsandboxed = variant.sandbox !== "off" && !bubblewrap.available;
    const scenario = `per turn, ${variant.label}${unsandboxed ? " (no bubblewrap: unsandboxed)" : ""}`;
    rows.push(rowOf(scenario, "agent-run wall ms/turn", cli.wall, undefined, 2));
    if (measureBare) rows.push(rowOf(scenario, "bare loop wall ms/turn", bare.wall, undefined, 2));
    const overhead = spread(cli.wall).median - spread(bare.wall).median;
    rows.push({
      scenario,
      measure: "runner overhead wall ms/turn",
      value: fmt(overhead, 2),
      spread: "agent-run − bare loop, medians",
      target: `< ${PER_TURN_TARGET_MS} ${overhead < PER_TURN_TARGET_MS ? "met" : "MISSED"}`,
    });
    const sandboxed = variant.sandbox !== "off" && bubblewrap.available;
    rows.push(
      ratioRow(
        scenario,
        "wall per turn, × bare loop",
        cli.wall,
        bare.wall,
        sandboxed ? PER_TURN_RATIO_TARGET.perTurn : undefined,
      ),
    );
    rows.push(rowOf(scenario, `agent-run last request → exit ms (${TURNS} turns)`, cli.last));
    if (measureBare)
      rows.push(rowOf(scenario, `bare loop last request → exit ms (${TURNS} turns)`, bare.last));
    rows.push(
      ratioRow(
        scenario,
        "last request → exit, × bare loop",
        cli.last,
        bare.last,
        PER_TURN_RATIO_TARGET.lastRequestToExit,
      ),
    );
    if (cli.cpu.length > 0 && bare.cpu.length > 0) {
      rows.push(rowOf(scenario, "agent-run CPU ms/turn", cli.cpu, undefined, 2));
      if (measureBare) rows.push(rowOf(scenario, "bare loop CPU ms/turn", bare.cpu, undefined, 2));
      rows.push({
        scenario,
        measure: "runner overhead CPU ms/turn",
        value: fmt(spread(cli.cpu).median - spread(bare.cpu).median, 2),
        spread: "agent-run − bare loop, medians",
        target: "",
      });
      rows.push(ratioRow(scenario, "CPU per turn, × bare loop", cli.cpu, bare.cpu));
    }
  }
  return rows;
}

/** Adds one run's per-turn figures: (long session − one-turn session) / TURNS. */
function addSlope(into: Slopes, long: Measured & RequestTimes, short: Measured): void {
  into.wall.push((long.wallMs - short.wallMs) / TURNS);
  into.last.push(long.lastRequestToExitMs);
  if (long.cpuMs !== undefined && short.cpuMs !== undefined)
    into.cpu.push((long.cpuMs - short.cpuMs) / TURNS);
}

async function session(
  ctx: BenchContext,
  variant: Variant,
  who: "cli" | "bare",
  turns: number,
): Promise<Measured & RequestTimes> {
  const task = taskYaml({ wire: variant.wire, ...(variant.sandbox && { sandbox: variant.sandbox }) });
  const workspace = await tempWorkspace({ "task.yml": task, "main.txt": markerFile(TURNS) });
  const script = turns === 0 ? [DONE] : toolCycleScript(turns);
  const what = `per turn: ${who} ${variant.label}, ${turns} tool turns`;
  if (who === "bare") return runBareOnce(ctx, variant.wire, workspace, script, what);
  const result = await runCliOnce(ctx, workspace, script, { what });
  await expectRun(workspace, turns + 1, turns, what);
  return result;
}
