/**
 * Long-session memory: sessions of N turns, each reading the same 40 KB file, for N = 100 and 500,
 * the CLI side by side with the bare loop (which keeps the transcript and nothing else). The
 * runner's peak RSS should grow with N like the bare loop's: by the transcript and the garbage of
 * serialising it whole into every request, not by anything of its own. The transcript size is
 * the last request's body as sent (its content-length).
 */
import type { Measured } from "./measure.ts";
import { type BenchContext, type RequestTimes, runBareOnce, runCliOnce } from "./run-cli.ts";
import { readLoopScript } from "./sessions.ts";
import { type BenchRow, fmt } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace } from "./workspace.ts";

const FILE_BYTES = 40 * 1024;

/** A 40 KB file of 80-byte lines: under the read tool's 2000-line and 50 KB bounds, so read whole. */
function fortyKb(): string {
  return `${"x".repeat(79)}\n`.repeat(FILE_BYTES / 80);
}

interface Point {
  turns: number;
  rssMb: number;
  transcriptMb: number;
  wallS: number;
  /** The last request to the exit: what the end of the run (its transcript first) costs. */
  endMs: number;
}

export async function longSession(ctx: BenchContext, sizes: number[] = [100, 500]): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const points: Record<"cli" | "bare", Point[]> = { cli: [], bare: [] };
  for (const turns of sizes) {
    for (const who of ["cli", "bare"] as const) {
      const workspace = await tempWorkspace({
        // The scenario measures memory against the whole transcript: nothing may be compacted away.
        "task.yml": taskYaml({ wire: "anthropic", compaction: false }),
        "big.txt": fortyKb(),
      });
      const what = `long session: ${who}, ${turns} turns reading 40 KB`;
      const script = readLoopScript(turns, "big.txt");
      let result: Measured & RequestTimes & { requests?: { headers: Record<string, unknown> }[] };
      if (who === "cli") {
        result = await runCliOnce(ctx, workspace, script, { what });
        await expectRun(workspace, turns + 1, turns, what);
      } else {
        result = await runBareOnce(ctx, "anthropic", workspace, script, what, { keepRequests: true });
      }
      const point: Point = {
        turns,
        rssMb: (result.peakRssKb ?? Number.NaN) / 1024,
        transcriptMb: Number(result.requests?.at(-1)?.headers["content-length"] ?? Number.NaN) / 1024 / 1024,
        wallS: result.wallMs / 1000,
        endMs: result.lastRequestToExitMs,
      };
      points[who].push(point);
      rows.push({
        scenario: `long session, ${turns} × read 40 KB`,
        measure: `${who === "cli" ? "agent-run" : "bare loop"} peak RSS MB`,
        value: fmt(point.rssMb),
        spread: `1 run; ${fmt(point.wallS, 1)} s; transcript ${fmt(point.transcriptMb, 1)} MB; last request → exit ${fmt(point.endMs)} ms`,
        target: "",
      });
    }
  }
  for (const who of ["cli", "bare"] as const) {
    const first = points[who][0];
    const last = points[who].at(-1);
    if (!first || !last || first === last) continue;
    const rss = last.rssMb - first.rssMb;
    const transcript = last.transcriptMb - first.transcriptMb;
    rows.push({
      scenario: `long session, ${first.turns} → ${last.turns} turns`,
      measure: `${who === "cli" ? "agent-run" : "bare loop"} RSS growth / transcript growth`,
      value: fmt(rss / transcript, 1),
      spread: `+${fmt(rss)} MB RSS for +${fmt(transcript)} MB transcript`,
      target: "",
    });
  }
  return rows;
}
