/**
 * One measured case of bench/tools.ts, run in its own process:
 * `node tools-child.(ts|mjs) MODE DIR [ARG] [local|sandbox]`. Prints one JSON line. Peak memory is
 * VmHWM from /proc/self/status: unlike getrusage's maxRSS, it is not inherited from the parent
 * across exec. With `sandbox`, the file tools get the operations of a sandbox session on DIR (as a
 * sandboxed run gives them); the session is started (one lookup) before the clock starts, and
 * its start is reported as `startMs`.
 */
import { readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import type { AgentContext, AgentTool, AgentToolResult } from "../src/core/types.ts";
import { createSandboxSession, detectSandbox, prepareSandbox, sandboxEnv } from "../src/sandbox/index.ts";
import {
  createBashTool,
  createEditTool,
  createFindTool,
  createGrepTool,
  createReadTool,
  type FileOperations,
  runProcess,
} from "../src/tools/index.ts";

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

const [mode, dir, linesArg, where] = process.argv.slice(2) as [string, string, string | undefined, string?];

async function sandboxOperations(): Promise<{
  operations: FileOperations;
  startMs: number;
  dispose(): Promise<void>;
}> {
  const support = await detectSandbox();
  if (!support.available) throw new Error(`no sandbox: ${support.reason}`);
  const prepared = await prepareSandbox({
    bwrapPath: support.bwrapPath,
    workspace: dir,
    protectedGlobs: [],
    env: process.env,
  });
  const session = createSandboxSession({
    policy: prepared.policy,
    serverEnv: sandboxEnv(process.env, { home: prepared.policy.home }),
    fallback: runProcess,
    onDown: (reason) => console.error(`session down: ${reason}`),
  });
  const operations = session.fileOperations(dir);
  const t = performance.now();
  await operations.lookup(".");
  const startMs = Math.round(performance.now() - t);
  const dispose = async () => {
    await session.dispose();
    await prepared.dispose();
  };
  return { operations, startMs, dispose };
}
const sandbox = where === "sandbox" ? await sandboxOperations() : undefined;
const files = sandbox ? { operations: sandbox.operations } : {};
const idle = peakRssMb();
const started = performance.now();
let extra: Record<string, unknown> = {};
if (mode === "seq") {
  const result = await call(createBashTool(dir, { spillDir: dir }), { command: "seq 1 3000000" });
  const full = result.details.fullOutputPath ? (await stat(result.details.fullOutputPath)).size : 0;
  extra = { resultBytes: textBytes(result), fullOutputBytes: full, totalBytes: result.details.totalBytes };
} else if (mode === "read") {
  const lines = Number(linesArg);
  const result = await call(createReadTool(dir, files), { path: "big.txt", offset: lines - 100 });
  extra = {
    resultBytes: textBytes(result),
    shownLines: result.details.endLine! - result.details.startLine! + 1,
  };
} else if (mode === "edit") {
  // "back" undoes "forward", so the same file serves both runs.
  const [from, to] =
    linesArg === "back"
      ? ["MARKER LINE CHANGED", "MARKER LINE TO CHANGE"]
      : ["MARKER LINE TO CHANGE", "MARKER LINE CHANGED"];
  const result = await call(createEditTool(dir, files), {
    path: "mid.txt",
    edits: [{ oldText: from, newText: to }],
  });
  extra = { firstChangedLine: result.details.firstChangedLine };
} else if (mode === "grep") {
  const result = await call(createGrepTool(dir, files), { pattern: linesArg ?? "needle", limit: 1000 });
  extra = { matches: result.details.matches, filesSearched: result.details.filesSearched };
} else if (mode === "grep-again") {
  // The first call's time is the tool's result; later calls' in `laterMs` (the regex worker kept).
  const grep = createGrepTool(dir, files);
  const result = await call(grep, { pattern: linesArg ?? "needle", limit: 1000 });
  const later: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await call(grep, { pattern: `${linesArg ?? "needle"}|x${i}`, limit: 1000 });
    later.push(performance.now() - t);
  }
  later.sort((a, b) => a - b);
  extra = { matches: result.details.matches, laterMs: Math.round(later[2]! * 10) / 10 };
  extra.firstMs = Math.round(performance.now() - started - later.reduce((a, b) => a + b, 0));
} else if (mode === "find") {
  const result = await call(createFindTool(dir, files), { pattern: "*.ts", limit: 100_000 });
  extra = { found: result.details.count };
} else {
  throw new Error(`unknown bench mode ${mode}`);
}
const ms = Math.round(performance.now() - started);
await sandbox?.dispose();
console.log(
  JSON.stringify({
    mode,
    ms,
    idleRssMb: idle,
    peakRssMb: peakRssMb(),
    ...(sandbox && { startMs: sandbox.startMs }),
    ...extra,
  }),
);
