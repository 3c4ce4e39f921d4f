/**
 * One measured case of bench/tools.ts, run in its own process: `node tools-child.(ts|mjs) MODE DIR [LINES]`.
 * Prints one JSON line. Peak memory is VmHWM from /proc/self/status: unlike getrusage's maxRSS,
 * it is not inherited from the parent across exec.
 */
import { readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import type { AgentContext, AgentTool, AgentToolResult } from "../src/core/types.ts";
import { createBashTool, createEditTool, createReadTool } from "../src/tools/index.ts";

const context: AgentContext = { systemPrompt: "", messages: [], tools: [] };
const signal = new AbortController().signal;

function call<P, D>(tool: AgentTool<P, D>, params: P): Promise<AgentToolResult<D>> {
  return tool.execute("bench", params, signal, () => {}, context);
}

function textBytes(result: AgentToolResult<unknown>): number {
  return result.content.reduce(
    (sum, part) => sum + (part.type === "text" ? Buffer.byteLength(part.text) : 0),
    0,
  );
}

function peakRssMb(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return match ? Math.round(Number(match[1]) / 1024) : Math.round(process.resourceUsage().maxRSS / 1024);
}

const [mode, dir, linesArg] = process.argv.slice(2) as [string, string, string | undefined];
const idle = peakRssMb();
const started = performance.now();
let extra: Record<string, unknown> = {};
if (mode === "seq") {
  const result = await call(createBashTool(dir, { spillDir: dir }), { command: "seq 1 3000000" });
  const full = result.details.fullOutputPath ? (await stat(result.details.fullOutputPath)).size : 0;
  extra = { resultBytes: textBytes(result), fullOutputBytes: full, totalBytes: result.details.totalBytes };
} else if (mode === "read") {
  const lines = Number(linesArg);
  const result = await call(createReadTool(dir), { path: "big.txt", offset: lines - 100 });
  extra = {
    resultBytes: textBytes(result),
    shownLines: result.details.endLine! - result.details.startLine! + 1,
  };
} else if (mode === "edit") {
  const result = await call(createEditTool(dir), {
    path: "mid.txt",
    edits: [{ oldText: "MARKER LINE TO CHANGE", newText: "MARKER LINE CHANGED" }],
  });
  extra = { firstChangedLine: result.details.firstChangedLine };
} else {
  throw new Error(`unknown bench mode ${mode}`);
}
const ms = Math.round(performance.now() - started);
console.log(JSON.stringify({ mode, ms, idleRssMb: idle, peakRssMb: peakRssMb(), ...extra }));
