/**
 * Benchmarks of the built-in tools (issue 3). Run: `node bench/tools.ts` (Node 24).
 *
 * Each memory figure comes from a fresh child process (VmHWM, the peak resident set of that whole
 * Node process), so one case's garbage does not count against another.
 * The children (bench/tools-child.ts) run bundled with rolldown, as the action and CLI ship (dist/);
 * the seq case is also run from the TypeScript sources, where Node's type stripping adds baseline.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, open, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import type { AgentContext } from "../src/core/types.ts";
import { detectSandbox } from "../src/sandbox/index.ts";
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

/** A tree of `folders` × `perFolder` small TypeScript files (3 levels deep), one line in 1 of 500 holding "needle". */
async function writeTree(root: string, folders: number, perFolder: number): Promise<number> {
  let n = 0;
  for (let f = 0; f < folders; f++) {
    const folder = join(root, `pkg${f % 20}`, `mod${Math.floor(f / 20)}`);
    await mkdir(folder, { recursive: true });
    for (let i = 0; i < perFolder; i++, n++) {
      const body = `export const value${i} = ${i};\n${"// filler line of a source file\n".repeat(30)}`;
      await writeFile(join(folder, `file${i}.ts`), n % 500 === 0 ? `${body}// needle ${n}\n` : body);
    }
  }
  return n;
}

/** The median of `runs` runs of a child case, with the spread. */
function medianOf(
  runs: number,
  run: () => Record<string, number>,
): { median: Record<string, number>; all: number[] } {
  const results = Array.from({ length: runs }, run).sort((a, b) => (a.ms ?? 0) - (b.ms ?? 0));
  return { median: results[Math.floor(runs / 2)]!, all: results.map((r) => r.ms ?? 0) };
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

    const sandboxed = (await detectSandbox()).available;
    const modes = sandboxed ? (["local", "sandbox"] as const) : (["local"] as const);
    if (!sandboxed) console.log("sandboxed file tools: skipped (bubblewrap cannot start here)");
    const work = join(dir, "work");
    await mkdir(work);

    const lines = await writeBigFile(join(work, "big.txt"), 200 * 1024 * 1024);
    console.log(`read 200 MB file at offset ${lines - 100} (3 runs):`);
    for (const where of modes) {
      const { median: read, all } = medianOf(3, () => runChild(bundle, "read", work, String(lines), where));
      console.log(
        `  ${where}: median ${read.ms} ms (${all.join(", ")}) peak RSS ${read.peakRssMb} MB (idle ${read.idleRssMb} MB), ${read.shownLines} lines, ${read.resultBytes} bytes${read.startMs !== undefined ? `, session start ${read.startMs} ms` : ""}`,
      );
    }
    await rm(join(work, "big.txt"));

    await writeBigFile(join(work, "mid.txt"), 10 * 1024 * 1024);
    const handle = await open(join(work, "mid.txt"), "a");
    await handle.write("MARKER LINE TO CHANGE\n");
    await handle.close();
    await writeBigFile(join(work, "tail.txt"), 10 * 1024 * 1024);
    spawnSync("sh", ["-c", `cat tail.txt >> mid.txt && rm tail.txt`], { cwd: work });
    const size = (await stat(join(work, "mid.txt"))).size;
    console.log(`edit one line of a ${(size / 1024 / 1024).toFixed(1)} MB file (3 runs each way):`);
    for (const where of modes) {
      let forward = true;
      const { median: edit, all } = medianOf(4, () => {
        const result = runChild(bundle, "edit", work, forward ? "forward" : "back", where);
        forward = !forward;
        return result;
      });
      console.log(
        `  ${where}: median ${edit.ms} ms (${all.join(", ")}) peak RSS ${edit.peakRssMb} MB (idle ${edit.idleRssMb} MB), first changed line ${edit.firstChangedLine}`,
      );
    }
    await rm(join(work, "mid.txt"));

    const files = await writeTree(work, 200, 100);
    console.log(`grep "needle" and find "*.ts" over ${files} files in 200 folders (3 runs):`);
    for (const where of modes) {
      const { median: grep, all } = medianOf(3, () => runChild(bundle, "grep", work, "needle", where));
      console.log(
        `  grep ${where}: median ${grep.ms} ms (${all.join(", ")}) ${grep.matches} matches in ${grep.filesSearched} files, peak RSS ${grep.peakRssMb} MB`,
      );
      const { median: find, all: findAll } = medianOf(3, () => runChild(bundle, "find", work, "", where));
      console.log(`  find ${where}: median ${find.ms} ms (${findAll.join(", ")}) ${find.found} paths`);
    }
    const regex = modes.map((where) => {
      const { median, all } = medianOf(3, () => runChild(bundle, "grep", work, "need+le \\d+", where));
      return `  grep regex ${where}: median ${median.ms} ms (${all.join(", ")}) ${median.matches} matches`;
    });
    for (const line of regex) console.log(line);

    const small = join(dir, "small");
    await mkdir(small);
    for (let i = 0; i < 50; i++)
      await writeFile(join(small, `f${i}.ts`), `export const a${i} = ${i};\n// needle\n`);
    console.log(
      "grep /need+le/ over 50 files, one process: the first call, later calls (median of 5) (3 runs):",
    );
    for (const where of modes) {
      const { median } = medianOf(3, () => runChild(bundle, "grep-again", small, "need+le", where));
      console.log(
        `  ${where}: first ${median.firstMs} ms, later ${median.laterMs} ms, ${median.matches} matches`,
      );
    }

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
