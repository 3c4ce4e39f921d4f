import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { computePatch } from "../src/output/diff.ts";
import { disposeSnapshot, snapshotWorkspace, updateTree } from "../src/output/snapshot.ts";
import { tempDir, writeFiles } from "./output-helpers.ts";

/**
 * Outside a repository the snapshot's first add streams every blob into one pack (bulk check-in:
 * 20,000 new files in ~1 s, not 1-6 s as loose objects). The adds after it (each turn-end
 * checkpoint, the end of the run) did too: each left one more pack behind, which every later
 * lookup of an object read again, and a bulk check-in rescans the pack folder for each file it
 * hashes, every file changed since the last add (10 changed in 20,000: 112 ms against 87 loose).
 * They write loose objects now, as inside a repository.
 */
function packsIn(gitDir: string): string[] {
  return fs.readdirSync(path.join(gitDir, "objects", "pack")).filter((name) => name.endsWith(".pack"));
}

test("outside a repository: the start is one pack, and the updates after it add none", async () => {
  const root = tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 50; i++) files[`src/f${i}.ts`] = `export const v${i} = ${i};\n`;
  writeFiles(root, files);
  const snapshot = await snapshotWorkspace(root);
  try {
    expect(snapshot.inRepository).toBe(false);
    const gitDir = snapshot.env.GIT_DIR ?? "";
    expect(packsIn(gitDir)).toHaveLength(1);
    for (let turn = 0; turn < 3; turn++) {
      fs.appendFileSync(path.join(root, `src/f${turn}.ts`), `// turn ${turn}\n`);
      fs.writeFileSync(path.join(root, `new${turn}.ts`), `export const n = ${turn};\n`);
      await updateTree(snapshot);
    }
    expect(packsIn(gitDir)).toHaveLength(1);
    const patch = await computePatch(snapshot, await updateTree(snapshot));
    expect(patch.files.map((file) => file.path).sort()).toEqual([
      "new0.ts",
      "new1.ts",
      "new2.ts",
      "src/f0.ts",
      "src/f1.ts",
      "src/f2.ts",
    ]);
  } finally {
    await disposeSnapshot(snapshot);
  }
});
