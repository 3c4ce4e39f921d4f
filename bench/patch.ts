/**
 * Patch generation on a large workspace: 20,000 files (in 200 directories), 10 of them changed.
 * Times the start snapshot and the end diff separately, for a committed git repository and for a
 * plain directory. Run with `node bench/patch.ts [files] [runs]`.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { diffWorkspace } from "../src/output/diff.ts";
import { disposeSnapshot, snapshotWorkspace } from "../src/output/snapshot.ts";

const FILES = Number(process.argv[2] ?? 20_000);
const RUNS = Number(process.argv[3] ?? 5);
const CHANGED = 10;

function makeWorkspace(withGit: boolean): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "agent-run-bench-"));
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(root, `pkg${i % 200}`);
    if (i < 200) fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, `file${i}.ts`),
      `export const value${i} = ${i};\n// ${"x".repeat(i % 200)}\n`,
    );
  }
  if (withGit) {
    const env = {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "b",
      GIT_AUTHOR_EMAIL: "b@b",
    };
    const gitEnv = { ...env, GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };
    execFileSync("sh", ["-c", "git init -q && git add -A && git commit -qm init"], {
      cwd: root,
      env: gitEnv,
    });
  }
  return root;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function bench(withGit: boolean): Promise<void> {
  const root = makeWorkspace(withGit);
  const snapshots: number[] = [];
  const diffs: number[] = [];
  let patchBytes = 0;
  for (let run = 0; run < RUNS; run++) {
    let started = performance.now();
    const snapshot = await snapshotWorkspace(root, { exclude: [".agent-run"] });
    snapshots.push(performance.now() - started);
    for (let i = 0; i < CHANGED; i++) {
      const index = (run * 997 + i * 1999) % FILES;
      fs.appendFileSync(
        path.join(root, `pkg${index % 200}`, `file${index}.ts`),
        `// run ${run} change ${i}\n`,
      );
    }
    started = performance.now();
    const diff = await diffWorkspace(snapshot, root);
    diffs.push(performance.now() - started);
    patchBytes = diff.patch.length;
    if (diff.files.length !== CHANGED)
      throw new Error(`expected ${CHANGED} changed files, got ${diff.files.length}`);
    await disposeSnapshot(snapshot);
  }
  fs.rmSync(root, { recursive: true, force: true });
  const label = withGit ? "git repository" : "plain directory";
  const format = (values: number[]) =>
    `median ${median(values).toFixed(0)} ms (${values.map((v) => v.toFixed(0)).join(", ")})`;
  console.log(`${label}, ${FILES} files, ${CHANGED} changed, ${RUNS} runs:`);
  console.log(`  snapshot: ${format(snapshots)}`);
  console.log(`  diff:     ${format(diffs)}  patch ${patchBytes} chars`);
}

await bench(true);
await bench(false);
