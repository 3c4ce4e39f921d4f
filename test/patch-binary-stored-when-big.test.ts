import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { computePatch } from "../src/output/diff.ts";
import { disposeSnapshot, snapshotWorkspace, updateTree } from "../src/output/snapshot.ts";
import { copyWithoutGit, gitRepo } from "./output-helpers.ts";

/**
 * The binary parts of patch.diff are deflated unless the run's new content is over the limit
 * (DEFLATE_PATCH_MAX_BYTES), where they are stored (deflating 300 MB would outlast a CI runner's
 * grace before a kill). Either patch applies.
 */
const ZEROS = Buffer.alloc(64 * 1024);
ZEROS[0] = 1;

async function patchOf(deflateMaxBytes?: number) {
  const root = gitRepo({ "a.txt": "a\n" });
  const start = copyWithoutGit(root);
  const snapshot = await snapshotWorkspace(root);
  try {
    fs.writeFileSync(path.join(root, "blob.bin"), ZEROS);
    const patch = await computePatch(snapshot, await updateTree(snapshot), {
      ...(deflateMaxBytes !== undefined && { deflateMaxBytes }),
    });
    const text = fs.readFileSync(patch.file, "utf8");
    execFileSync("git", ["apply", "--binary", patch.file], { cwd: start });
    return { text, applied: fs.readFileSync(path.join(start, "blob.bin")) };
  } finally {
    await disposeSnapshot(snapshot);
  }
}

test("under the limit the binary part is deflated", async () => {
  const { text, applied } = await patchOf();
  expect(text).toContain(`literal ${ZEROS.length}`);
  expect(text.length).toBeLessThan(4096);
  expect(applied.equals(ZEROS)).toBe(true);
});

test("over the limit it is stored", async () => {
  const { text, applied } = await patchOf(1000);
  expect(text).toContain(`literal ${ZEROS.length}`);
  // Base85 of 64 KiB kept as it is: five characters per four bytes, and a line break per 52.
  expect(text.length).toBeGreaterThan(ZEROS.length);
  expect(applied.equals(ZEROS)).toBe(true);
});
