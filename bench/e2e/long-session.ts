/**
 * Long-session memory: sessions of N turns, each reading the same 40 KB file, for N = 100 and 500.
 * Peak RSS must grow with N by no more than a small multiple of the transcript itself (which the
 * runner keeps, and serialises whole into each request). The transcript size is the last
 * request's body as sent (its content-length).
 */
import { type BenchContext, runCliOnce } from "./run-cli.ts";
import { readLoopScript } from "./sessions.ts";
import type { BenchRow } from "./stats.ts";
import { fmt } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace } from "./workspace.ts";

const FILE_BYTES = 40 * 1024;

/** A 40 KB file of 80-byte lines: under the read tool's 2000-line and 50 KB bounds, so read whole. */
function fortyKb(): string {
  const line = `${"x".repeat(70)} line ...\n`.slice(0, 80);
  return line.repeat(FILE_BYTES / 80);
}

export async function longSession(ctx: BenchContext, sizes: number[] = [100, 500]): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const points: { turns: number; rssMb: number; transcriptMb: number }[] = [];
  for (const turns of sizes) {
    const workspace = await tempWorkspace({
      "task.yml": taskYaml({ wire: "anthropic" }),
      "big.txt": fortyKb(),
    });
    const what = `long session: ${turns} turns reading 40 KB`;
    const result = await runCliOnce(ctx, workspace, readLoopScript(turns, "big.txt"), { what });
    await expectRun(workspace, turns + 1, turns, what);
    const transcriptMb =
      Number(result.requests.at(-1)?.headers["content-length"] ?? Number.NaN) / 1024 / 1024;
    const rssMb = (result.peakRssKb ?? Number.NaN) / 1024;
    points.push({ turns, rssMb, transcriptMb });
    rows.push({
      scenario: `long session, ${turns} × read 40 KB`,
      measure: "peak RSS MB",
      value: fmt(rssMb),
      spread: `1 run; ${fmt(result.wallMs / 1000, 1)} s; transcript ${fmt(transcriptMb, 1)} MB`,
      target: "",
    });
  }
  const first = points[0];
  const last = points.at(-1);
  if (first && last && last !== first) {
    const growth = (last.rssMb - first.rssMb) / (last.transcriptMb - first.transcriptMb);
    rows.push({
      scenario: `long session, ${first.turns} → ${last.turns} turns`,
      measure: "RSS growth / transcript growth",
      value: fmt(growth, 2),
      spread: `+${fmt(last.rssMb - first.rssMb)} MB RSS for +${fmt(last.transcriptMb - first.transcriptMb)} MB transcript`,
      target: "",
    });
  }
  return rows;
}
