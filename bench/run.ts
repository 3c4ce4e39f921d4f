/**
 * `npm run bench`: the end-to-end suite (bench/e2e), then the tools bench (bench/tools.ts), the
 * patch bench (bench/patch.ts) and the redaction bench (bench/redact.ts), each in its own child process, their output streamed as it comes;
 * then one combined Markdown table. Exits 1 when any of them failed (a broken scenario, not a
 * slow one). Figures and method: docs/benchmarks.md.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { type BenchRow, markdownTable } from "./e2e/stats.ts";
import { rowsFromText } from "./text-rows.ts";

interface Suite {
  name: string;
  script: string;
}

const SUITES: Suite[] = [
  { name: "e2e", script: "e2e/index.ts" },
  { name: "tools", script: "tools.ts" },
  { name: "patch", script: "patch.ts" },
  { name: "spec", script: "spec.ts" },
  { name: "redact", script: "redact.ts" },
];

function runSuite(suite: Suite): Promise<{ code: number | null; stdout: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, suite.script)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      stdout += text;
      process.stdout.write(text.replace(/^BENCH_ROWS .*$/m, ""));
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, ms: performance.now() - started }));
  });
}

const rows: BenchRow[] = [];
const failed: string[] = [];
for (const suite of SUITES) {
  console.log(`\n## ${suite.name} (bench/${suite.script})\n`);
  const result = await runSuite(suite);
  console.log(`(${suite.name}: ${(result.ms / 1000).toFixed(1)} s)`);
  if (result.code !== 0) failed.push(`${suite.name} exited ${result.code}`);
  const marker = /^BENCH_ROWS (.*)$/m.exec(result.stdout);
  if (marker?.[1]) rows.push(...(JSON.parse(marker[1]) as BenchRow[]));
  else if (result.code === 0) rows.push(...rowsFromText(suite.name, result.stdout));
}
console.log(`\n## All benchmarks (Node ${process.version}, ${process.platform}/${process.arch})\n`);
console.log(markdownTable(rows));
if (failed.length > 0) {
  console.error(`\nbench failed: ${failed.join("; ")}`);
  process.exitCode = 1;
}
