/**
 * Big output: `seq 1 3000000` (about 22 MB) in one bash call. Peak RSS of the whole CLI and the
 * size of the tool result as sent back to the model (the text of the next request's tool result).
 */
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { type BenchContext, runBareOnce, runCliOnce } from "./run-cli.ts";
import { fanOutScript } from "./sessions.ts";
import { type BenchRow, ratioRow, rowOf } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace } from "./workspace.ts";

/** Target: peak RSS under 120 MB. */
export const BIG_OUTPUT_TARGET_MB = 120;

/** Target: wall time at most 1.3 times the bare loop's (issue 18), which sends all 22.9 MB back. */
export const BIG_OUTPUT_RATIO_TARGET = 1.3;

export async function bigOutput(ctx: BenchContext, runs: number): Promise<BenchRow[]> {
  const rss: number[] = [];
  const wall: number[] = [];
  const sent: number[] = [];
  const cpu: number[] = [];
  const bare = { wall: [] as number[], cpu: [] as number[] };
  for (let run = 0; run < runs; run++) {
    const workspace = await tempWorkspace({ "task.yml": taskYaml({ wire: "anthropic" }) });
    const what = "big output: seq 1 3000000";
    const result = await runCliOnce(ctx, workspace, fanOutScript("seq 1 3000000", 1), {
      what,
      recordBodies: true,
    });
    await expectRun(workspace, 2, 1, what);
    wall.push(result.wallMs);
    if (result.cpuMs !== undefined) cpu.push(result.cpuMs);
    const bareRun = await runBareOnce(
      ctx,
      "anthropic",
      await tempWorkspace(),
      fanOutScript("seq 1 3000000", 1),
      `${what}, bare loop`,
    );
    bare.wall.push(bareRun.wallMs);
    if (bareRun.cpuMs !== undefined) bare.cpu.push(bareRun.cpuMs);
    if (result.peakRssKb !== undefined) rss.push(result.peakRssKb / 1024);
    sent.push(toolResultBytes(result.requests[1]?.body));
    await removeSpill(workspace);
  }
  const s = "big output (seq 1 3000000)";
  const rows = [
    rowOf(s, "wall ms", wall),
    rowOf(s, "bare loop wall ms", bare.wall),
    ratioRow(s, "wall, × bare loop", wall, bare.wall, BIG_OUTPUT_RATIO_TARGET),
  ];
  if (cpu.length > 0 && bare.cpu.length > 0) {
    rows.push(rowOf(s, "CPU ms", cpu), rowOf(s, "bare loop CPU ms", bare.cpu));
    rows.push(ratioRow(s, "CPU, × bare loop", cpu, bare.cpu));
  }
  if (rss.length > 0)
    rows.push(rowOf("big output (seq 1 3000000)", "peak RSS MB", rss, { below: BIG_OUTPUT_TARGET_MB }));
  rows.push(rowOf("big output (seq 1 3000000)", "bytes sent to the model", sent));
  return rows;
}

/** Deletes the full output the bash tool saved (22 MB, in the system temp folder) for this run. */
async function removeSpill(workspace: string): Promise<void> {
  const events = await readFile(path.join(workspace, ".agent-run", "events.jsonl"), "utf8");
  for (const match of events.matchAll(/"fullOutputPath":"([^"]+)"/g))
    await rm(match[1] as string, { force: true });
}

/** UTF-8 bytes of the text of the tool results in an Anthropic request's last message. */
function toolResultBytes(body: Record<string, unknown> | undefined): number {
  const messages = (body?.messages ?? []) as { content: unknown }[];
  const last = messages.at(-1)?.content;
  if (!Array.isArray(last)) throw new Error("big output: the second request carries no tool result");
  let bytes = 0;
  for (const block of last as { type: string; content?: unknown }[]) {
    if (block.type !== "tool_result") continue;
    const parts = typeof block.content === "string" ? [{ type: "text", text: block.content }] : block.content;
    for (const part of parts as { type: string; text?: string }[])
      if (part.type === "text") bytes += Buffer.byteLength(part.text ?? "");
  }
  return bytes;
}
