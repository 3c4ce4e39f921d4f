/**
 * Patch generation on a large workspace: 20,000 files (in 200 directories), 10 of them changed.
 * Times the start snapshot and the end diff separately, for a committed git repository and for a
 * plain directory; then what a run pays after each turn that ran a writing tool (the index update,
 * and the checkpoint's patch, computed in the background during the next model call); then a run
 * that creates 130,000 files, end to end (issue 13: such a run got an empty patch); last, the end
 * of a run through the bundled CLI, last reply to outputs written (./patch-end-of-run.ts). Run with
 * `node bench/patch.ts [files] [runs] [many] [end-runs] [end-only]` (many=0 or end-runs=0 skips
 * that part; end-only picks the end-of-run changes whose label starts with it, e.g. "a 300").
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { computePatch, diffWorkspace } from "../src/output/diff.ts";
import { createRedactor } from "../src/output/redact.ts";
import { disposeSnapshot, snapshotWorkspace, updateTree } from "../src/output/snapshot.ts";
import { writePatch } from "../src/output/write-patch.ts";
import { benchEndOfRun } from "./patch-end-of-run.ts";

const FILES = Number(process.argv[2] ?? 20_000);
const RUNS = Number(process.argv[3] ?? 5);
const MANY = Number(process.argv[4] ?? 130_000);
const END_RUNS = Number(process.argv[5] ?? 3);
const END_ONLY = process.argv[6];
const CHANGED = 10;

function makeWorkspace(withGit: boolean, files = FILES): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "agent-run-bench-"));
  for (let i = 0; i < files; i++) {
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
    // No automatic gc: it would go on in the background, writing into .git while the bench goes on.
    execFileSync("sh", ["-c", "git init -q && git add -A && git -c gc.auto=0 commit -qm init"], {
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

/** The turn-end checkpoint: after one file changed, the index update and then that tree's patch. */
async function benchTurnEnd(): Promise<void> {
  const root = makeWorkspace(true);
  const snapshot = await snapshotWorkspace(root, { exclude: [".agent-run"] });
  const updates: number[] = [];
  const patches: number[] = [];
  for (let turn = 0; turn < RUNS * 4; turn++) {
    fs.appendFileSync(path.join(root, `pkg${turn % 200}`, `file${turn}.ts`), `// turn ${turn}\n`);
    let started = performance.now();
    const tree = await updateTree(snapshot);
    updates.push(performance.now() - started);
    started = performance.now();
    await computePatch(snapshot, tree);
    patches.push(performance.now() - started);
  }
  await disposeSnapshot(snapshot);
  fs.rmSync(root, { recursive: true, force: true });
  const format = (values: number[]) =>
    `median ${median(values).toFixed(0)} ms (${[Math.min(...values), Math.max(...values)].map((v) => v.toFixed(0)).join(", ")})`;
  console.log(
    `turn-end checkpoint, git repository, ${FILES} files, 1 more changed each turn, ${RUNS * 4} turns:`,
  );
  console.log(`  index update (waited for): ${format(updates)}`);
  console.log(`  checkpoint patch (background): ${format(patches)}`);
}

/** A run that creates MANY files: snapshot, the files, the index update, the patch, patch.diff. */
async function benchManyFiles(): Promise<void> {
  const root = makeWorkspace(true, 10);
  const snapshot = await snapshotWorkspace(root, { exclude: [".agent-run"] });
  for (let i = 0; i < MANY; i++) {
    const dir = path.join(root, "node_modules", `pkg${Math.floor(i / 1000)}`);
    if (i % 1000 === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `index${i}.js`), `module.exports = ${i};\n`);
  }
  let started = performance.now();
  const tree = await updateTree(snapshot);
  const update = performance.now() - started;
  started = performance.now();
  const patch = await computePatch(snapshot, tree);
  const diff = performance.now() - started;
  started = performance.now();
  const dest = path.join(root, "patch.diff");
  const written = await writePatch(patch, dest, { redactor: createRedactor(), headChars: 65_536 });
  const write = performance.now() - started;
  if (patch.files.length !== MANY)
    throw new Error(`expected ${MANY} changed files, got ${patch.files.length}`);
  await disposeSnapshot(snapshot);
  fs.rmSync(root, { recursive: true, force: true });
  console.log(`${MANY} new files in a git repository, end to end:`);
  console.log(`  index update: ${update.toFixed(0)} ms`);
  console.log(`  patch (git): ${diff.toFixed(0)} ms`);
  console.log(
    `  patch.diff (redacted, counted): ${write.toFixed(0)} ms, ${(written.bytes / 1e6).toFixed(1)} MB`,
  );
}

await bench(true);
await bench(false);
await benchTurnEnd();
if (MANY > 0) await benchManyFiles();
if (END_RUNS > 0) await benchEndOfRun(END_RUNS, END_ONLY);
