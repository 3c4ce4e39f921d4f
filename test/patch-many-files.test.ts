import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { computePatch } from "../src/output/diff.ts";
import { formatDiffstat } from "../src/output/diffstat.ts";
import { createRedactor } from "../src/output/redact.ts";
import { disposeSnapshot, snapshotWorkspace, updateTree } from "../src/output/snapshot.ts";
import { MAX_DIFFSTAT_FILES, renderSummary } from "../src/output/summary.ts";
import type { ChangedFile } from "../src/output/types.ts";
import { writePatch } from "../src/output/write-patch.ts";
import { gitRepo, makeRecord, tempDir } from "./output-helpers.ts";

/**
 * Issue 13: a run that changed more than ~125,000 files got an empty patch and "0 files changed":
 * the diffstat spread every file into one Math.max call, which throws past the engine's argument
 * limit. The end-to-end run at that size is a bench scenario (bench/patch.ts, ~10 s on a quiet
 * machine); here the same code at 300,000 files, and the whole patch path at 3,000.
 */
const MANY = 300_000;

function manyFiles(count: number): ChangedFile[] {
  return Array.from({ length: count }, (_, i) => ({
    path: `node_modules/pkg${i % 500}/file${i}.js`,
    status: "added",
    additions: (i % 7) + 1,
    deletions: 0,
    binary: i % 1000 === 0,
  }));
}

test(`the diffstat of ${MANY.toLocaleString("en")} changed files`, () => {
  const files = manyFiles(MANY);
  const stat = formatDiffstat(files);
  const lines = stat.trimEnd().split("\n");
  expect(lines).toHaveLength(MANY + 1);
  const insertions = files.reduce((sum, file) => sum + file.additions, 0);
  expect(lines.at(-1)).toBe(` ${MANY} files changed, ${insertions} insertions(+), 0 deletions(-)`);
  const listed = formatDiffstat(files, undefined, MAX_DIFFSTAT_FILES).trimEnd().split("\n");
  expect(listed).toHaveLength(MAX_DIFFSTAT_FILES + 1);
  expect(listed.at(-1)).toBe(lines.at(-1));
});

test(`the summary of ${MANY.toLocaleString("en")} changed files counts them all and lists the first`, () => {
  const files = manyFiles(MANY);
  const diff = { patch: "", files, diffstat: formatDiffstat(files, undefined, MAX_DIFFSTAT_FILES) };
  const summary = renderSummary(makeRecord(), diff);
  expect(summary).toContain(`#### Files changed (${MANY})`);
  expect(summary).toContain(`\u2026 and ${(MANY - MAX_DIFFSTAT_FILES).toLocaleString("en")} more files`);
  expect(summary.length).toBeLessThanOrEqual(65_536);
});

test("3,000 new files: patch.diff (streamed) holds each with its line count", async () => {
  const root = gitRepo({ "a.txt": "a\n" });
  const snapshot = await snapshotWorkspace(root);
  try {
    for (let i = 0; i < 3000; i++) {
      const file = path.join(root, "gen", `d${i % 30}`, `f${i}.js`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, "x\n".repeat((i % 3) + 1));
    }
    const patch = await computePatch(snapshot, await updateTree(snapshot));
    const dest = path.join(tempDir(), "patch.diff");
    const written = await writePatch(patch, dest, { redactor: createRedactor(), headChars: 65_536 });
    expect(patch.files).toHaveLength(3000);
    expect(patch.files.reduce((sum, file) => sum + file.additions, 0)).toBe(6000);
    expect(written.complete).toBe(false);
    expect(written.bytes).toBe(fs.statSync(dest).size);
    expect(fs.readFileSync(dest, "utf8").match(/^diff --git /gm)).toHaveLength(3000);
  } finally {
    await disposeSnapshot(snapshot);
  }
});
