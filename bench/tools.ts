/**
 * Benchmarks of the built-in tools (issue 3). Run: `node bench/tools.ts` (Node 24).
 *
 * Each memory figure comes from a fresh child process (VmHWM, the peak resident set of that whole
 * Node process), so one case's garbage does not count against another.
 * The children (bench/tools-child.ts) run bundled with rolldown, as the action and CLI ship (dist/);
 * the seq case is also run from the TypeScript sources, where Node's type stripping adds baseline.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import type { AgentContext } from "../src/core/types.ts";
import { createBashTool } from "../src/tools/index.ts";

const context: AgentContext = { systemPrompt: "", messages: [], tools: [] };
const signal = new AbortController().signal;
const childSource = fileURLToPath(new URL("./tools-child.ts", import.meta.url));

async function writeBigFile(path: string, bytes: number): Promise<number> {
  const line = `${"x".repeat(90)} the quick brown fox\n`;
  const block = Buffer.from(line.repeat(Math.floor((1024 * 1024) / line.length)));
  const handle = await open(path, "w");
  let written = 0;
  try {
    while (written < bytes) {
      await handle.write(block);
      written += block.length;
    }
  } finally {
    await handle.close();
  }
  return written / Buffer.byteLength(line);
}

function runChild(script: string, mode: string, dir: string, ...args: string[]): Record<string, number> {
  const out = spawnSync(process.execPath, [script, mode, dir, ...args], { encoding: "utf8" });
  if (out.status !== 0) throw new Error(`bench child ${mode} failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split("\n").pop()!) as Record<string, number>;
}

async function overhead(
  dir: string,
  runs: number,
): Promise<{ toolMs: number; bareMs: number; ratio: number }> {
  const bash = createBashTool(dir);
  const call = () => bash.execute("bench", { command: "true" }, signal, () => {}, context);
  await call();
  await execa("bash", ["-c", "true"], { cwd: dir });
  const tool: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await call();
    tool.push(performance.now() - t);
    t = performance.now();
    await execa("bash", ["-c", "true"], { cwd: dir });
    bare.push(performance.now() - t);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const toolMs = median(tool);
  const bareMs = median(bare);
  return { toolMs, bareMs, ratio: toolMs / bareMs };
}

export async function runToolsBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "agent-run-bench-tools-"));
  try {
    const { build } = await import("rolldown");
    const bundleDir = join(dir, "bundle");
    await build({
      input: childSource,
      platform: "node",
      output: { dir: bundleDir, format: "esm", entryFileNames: "tools-child.mjs" },
      logLevel: "silent",
    });
    const bundle = join(bundleDir, "tools-child.mjs");
    const seq = runChild(bundle, "seq", dir);
    console.log(
      `bash seq 1 3000000 (bundled): ${seq.ms} ms, peak RSS ${seq.peakRssMb} MB (idle ${seq.idleRssMb} MB; limit 120), model-facing ${seq.resultBytes} bytes (limit 51200), full output on disk ${seq.fullOutputBytes} of ${seq.totalBytes} bytes`,
    );
    const seqTs = runChild(childSource, "seq", dir);
    console.log(
      `bash seq 1 3000000 (TypeScript sources, type stripping): ${seqTs.ms} ms, peak RSS ${seqTs.peakRssMb} MB (idle ${seqTs.idleRssMb} MB)`,
    );

    const lines = await writeBigFile(join(dir, "big.txt"), 200 * 1024 * 1024);
    const read = runChild(bundle, "read", dir, String(lines));
    console.log(
      `read 200 MB file at offset ${lines - 100}: ${read.ms} ms, peak RSS ${read.peakRssMb} MB (idle ${read.idleRssMb} MB), ${read.shownLines} lines, ${read.resultBytes} bytes`,
    );

    await writeBigFile(join(dir, "mid.txt"), 10 * 1024 * 1024);
    const handle = await open(join(dir, "mid.txt"), "a");
    await handle.write("MARKER LINE TO CHANGE\n");
    await handle.close();
    await writeBigFile(join(dir, "tail.txt"), 10 * 1024 * 1024);
    spawnSync("sh", ["-c", `cat tail.txt >> mid.txt && rm tail.txt`], { cwd: dir });
    const size = (await stat(join(dir, "mid.txt"))).size;
    const edit = runChild(bundle, "edit", dir);
    console.log(
      `edit one line of a ${(size / 1024 / 1024).toFixed(1)} MB file: ${edit.ms} ms, peak RSS ${edit.peakRssMb} MB (idle ${edit.idleRssMb} MB), first changed line ${edit.firstChangedLine}`,
    );

    const cost = await overhead(dir, 40);
    console.log(
      `bash "true" overhead: tool ${cost.toolMs.toFixed(1)} ms vs bare execa ${cost.bareMs.toFixed(1)} ms (median of 40), ratio ${cost.ratio.toFixed(2)}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await runToolsBench();
}
