/**
 * Reading large and hostile task files, through the built CLI (`agent-run validate`, a child
 * process per run, its start included): 100,000 `vars` keys (the target: about a second), 20,000
 * undefined variables, 50,000 templates, 20,000 unknown keys, an alias bomb. Each must be linear
 * (before the input checks, 20,000 vars keys took 21 s and 100,000 never finished). Run with
 * `node bench/spec.ts [runs]`; it bundles the CLI from the sources first, as the tests do.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildInto } from "../rolldown.config.ts";

const RUNS = Number(process.argv[2] ?? 5);
const HEAD = "model: anthropic:claude-sonnet-4-5\nsandbox: off\n";

const dist = fs.mkdtempSync(path.join(os.tmpdir(), "agent-run-bench-spec-dist-"));
await buildInto(dist);
const cli = path.join(dist, "cli.js");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-run-bench-spec-"));

const lines = (n: number, line: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => line(i)).join("\n");
const files: Array<[string, string, number]> = [
  ["100,000 vars keys (valid)", `${HEAD}prompt: x\nvars:\n${lines(100_000, (i) => `  k${i}: v${i}`)}\n`, 0],
  [
    "20,000 undefined variables",
    `${HEAD}prompt: "${lines(20_000, (i) => `{{ vars.u${i} }}`).replaceAll("\n", " ")}"\nvars: { a: x }\n`,
    2,
  ],
  ["50,000 templates (valid)", `${HEAD}prompt: "${"{{ vars.a }}".repeat(50_000)}"\nvars: { a: x }\n`, 0],
  ["20,000 unknown keys", `${HEAD}prompt: x\n${lines(20_000, (i) => `key${i}: 1`)}\n`, 2],
  [
    "alias bomb (9^7 values)",
    `${HEAD}prompt: x\n${lines(
      7,
      (i) =>
        `a${i}: &a${i} [${Array(9)
          .fill(i === 0 ? "lol" : `*a${i - 1}`)
          .join(", ")}]`,
    )}\n`,
    2,
  ],
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

let failed = false;
console.log("agent-run validate, wall time of the child process:");
for (const [label, text, expected] of files) {
  const file = path.join(dir, "task.yml");
  fs.writeFileSync(file, text);
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, [cli, "validate", file], {
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
    times.push(performance.now() - started);
    if (result.status !== expected) {
      console.error(`${label}: exit ${result.status}, expected ${expected}\n${result.stderr.slice(0, 500)}`);
      failed = true;
    }
  }
  const size = `${(Buffer.byteLength(text) / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `  ${label}: median ${(median(times) / 1000).toFixed(2)} s (${times.map((t) => (t / 1000).toFixed(2)).join(", ")}) ${size}`,
  );
}
fs.rmSync(dir, { recursive: true, force: true });
fs.rmSync(dist, { recursive: true, force: true });
if (failed) process.exitCode = 1;
