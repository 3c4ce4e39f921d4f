/**
 * Measures the bundles: size of each file in dist/ and the action's cold start, the time from
 * spawning `node dist/index.js` to its first line of log, median of N runs (default 15).
 *
 * Usage: node scripts/measure-dist.ts [dist-dir] [runs]
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

const dist = path.resolve(process.argv[2] ?? "dist");
const runs = Number(process.argv[3] ?? 15);

async function sizes(dir: string): Promise<Array<[string, number]>> {
  const out: Array<[string, number]> = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.push([path.relative(dir, file), (await stat(file)).size]);
  }
  return out.sort((a, b) => b[1] - a[1]);
}

/** Milliseconds from spawn to the first stdout byte. The inputs make it stop right after logging. */
async function firstLineMs(workspace: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dist, "index.js")], {
      cwd: workspace,
      // An invalid `comment` input fails after the secrets are masked: the first line is the mask.
      env: {
        PATH: process.env.PATH,
        GITHUB_WORKSPACE: workspace,
        "INPUT_GITHUB-TOKEN": "x",
        INPUT_PROMPT: "hi",
      },
      stdio: ["ignore", "pipe", "ignore"],
    });
    child.stdout.once("data", () => resolve(performance.now() - started));
    child.once("error", reject);
  });
}

const files = await sizes(dist);
const total = files.reduce((sum, [, size]) => sum + size, 0);
for (const [file, size] of files) console.log(`${(size / 1024).toFixed(1).padStart(8)} KB  ${file}`);
console.log(`${(total / 1024).toFixed(1).padStart(8)} KB  total`);

const workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-measure-"));
await writeFile(path.join(workspace, "README.md"), "");
const times: number[] = [];
for (let i = 0; i < runs; i++) times.push(await firstLineMs(workspace));
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)] ?? 0;
console.log(
  `cold start to first log line: median ${median.toFixed(0)} ms over ${runs} runs (min ${times[0]?.toFixed(0)} ms)`,
);
