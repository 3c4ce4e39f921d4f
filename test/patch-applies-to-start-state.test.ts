import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { diffWorkspace } from "../src/output/diff.ts";
import { disposeSnapshot, snapshotWorkspace, type WorkspaceSnapshot } from "../src/output/snapshot.ts";
import { copyWithoutGit, gitRepo, sh, tempDir, treeState, writeFiles } from "./output-helpers.ts";

const snapshots: WorkspaceSnapshot[] = [];
afterEach(async () => {
  for (const snapshot of snapshots.splice(0)) await disposeSnapshot(snapshot);
});

/**
 * Snapshots `root`, copies its start state, runs `change`, diffs, then applies the patch to the
 * copy: `git apply --check` must pass and the copy must then equal the end state (minus `skip`).
 */
async function roundTrip(
  root: string,
  change: (dir: string) => void,
  { exclude = [], skip = [] }: { exclude?: string[]; skip?: string[] } = {},
) {
  const snapshot = await snapshotWorkspace(root, { exclude });
  snapshots.push(snapshot);
  const copy = copyWithoutGit(root);
  change(root);
  const diff = await diffWorkspace(snapshot, root);
  const patchFile = path.join(tempDir(), "patch.diff");
  fs.writeFileSync(patchFile, diff.patch, diff.patchEncoding ?? "utf8");
  if (diff.patch !== "") {
    execFileSync("git", ["apply", "--check", patchFile], { cwd: copy });
    execFileSync("git", ["apply", patchFile], { cwd: copy });
  }
  expect(treeState(copy, skip)).toEqual(treeState(root, skip));
  return diff;
}

describe("patch.diff applies to a clean copy of the starting state", () => {
  test("a new file, an empty file, a name with spaces and non-ASCII", async () => {
    const root = gitRepo({ "a.txt": "a\n" });
    const diff = await roundTrip(root, (dir) =>
      writeFiles(dir, { "new.txt": "hello\n", "empty.txt": "", "dir with space/caf\u00e9.md": "x" }),
    );
    expect(diff.files.map((f) => [f.path, f.status])).toEqual([
      ["dir with space/caf\u00e9.md", "added"],
      ["empty.txt", "added"],
      ["new.txt", "added"],
    ]);
    expect(diff.patch).toContain("+++ b/dir with space/caf\u00e9.md");
  });

  test("a deleted file", async () => {
    const root = gitRepo({ "a.txt": "a\n", "gone.txt": "bye\n" });
    const diff = await roundTrip(root, (dir) => fs.rmSync(path.join(dir, "gone.txt")));
    expect(diff.files).toEqual([
      { path: "gone.txt", status: "deleted", additions: 0, deletions: 1, binary: false },
    ]);
  });

  test("a renamed file", async () => {
    const body = Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join("");
    const root = gitRepo({ "old/name.ts": body });
    const diff = await roundTrip(root, (dir) => {
      fs.mkdirSync(path.join(dir, "new"));
      fs.renameSync(path.join(dir, "old/name.ts"), path.join(dir, "new/name.ts"));
    });
    expect(diff.files).toEqual([
      {
        path: "new/name.ts",
        oldPath: "old/name.ts",
        status: "renamed",
        additions: 0,
        deletions: 0,
        binary: false,
      },
    ]);
    expect(diff.patch).toContain("rename from old/name.ts\nrename to new/name.ts");
  });

  test("a mode change and a new symlink", async () => {
    const root = gitRepo({ "run.sh": "echo hi\n" });
    const diff = await roundTrip(root, (dir) => {
      fs.chmodSync(path.join(dir, "run.sh"), 0o755);
      fs.symlinkSync("run.sh", path.join(dir, "link.sh"));
    });
    expect(diff.files).toEqual([
      { path: "link.sh", status: "added", additions: 1, deletions: 0, binary: false },
      {
        path: "run.sh",
        status: "modified",
        additions: 0,
        deletions: 0,
        binary: false,
        oldMode: "100644",
        newMode: "100755",
      },
    ]);
  });

  test("binary files, new and modified", async () => {
    const root = gitRepo({ "img.bin": Buffer.from([0, 1, 2, 3, 255, 0, 7]) });
    const diff = await roundTrip(root, (dir) =>
      writeFiles(dir, {
        "img.bin": Buffer.from([0, 1, 2, 4, 254, 0, 9, 9]),
        "new.bin": Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256)),
      }),
    );
    expect(diff.files.map((f) => [f.path, f.binary])).toEqual([
      ["img.bin", true],
      ["new.bin", true],
    ]);
    expect(diff.patch).toContain("GIT binary patch");
  });

  test("a dirty starting tree: uncommitted, staged and untracked changes stay out of the patch", async () => {
    const root = gitRepo({ "a.txt": "one\n", "b.txt": "two\n", "c.txt": "three\n" });
    sh(
      root,
      "echo mine >> a.txt && echo staged >> b.txt && git add b.txt && echo untracked > u.txt && rm c.txt",
    );
    const diff = await roundTrip(root, (dir) => {
      fs.appendFileSync(path.join(dir, "a.txt"), "agent\n");
      fs.writeFileSync(path.join(dir, "u.txt"), "agent rewrote\n");
    });
    expect(diff.patch).not.toMatch(/^\+mine/m);
    expect(diff.patch).not.toContain("staged");
    expect(diff.patch).not.toContain("c.txt");
    expect(diff.patch).not.toMatch(/^\+untracked/m);
    expect(diff.files.map((f) => f.path)).toEqual(["a.txt", "u.txt"]);
  });

  test("a workspace that is not a git repository", async () => {
    const root = tempDir();
    writeFiles(root, { "a.txt": "a\n", "sub/b.txt": "b\n", ".gitignore": "*.log\n" });
    const diff = await roundTrip(
      root,
      (dir) => {
        writeFiles(dir, { "sub/b.txt": "b2\n", "c.txt": "c\n", "debug.log": "ignored\n" });
        fs.rmSync(path.join(dir, "a.txt"));
      },
      { skip: ["debug.log"] },
    );
    expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual([
      "deleted a.txt",
      "added c.txt",
      "modified sub/b.txt",
    ]);
    expect(fs.existsSync(path.join(root, ".git"))).toBe(false);
  });

  test("ignored files and the outputs dir inside the workspace are left out", async () => {
    const root = gitRepo({ ".gitignore": "node_modules/\n*.tmp\n", "a.txt": "a\n" });
    const diff = await roundTrip(
      root,
      (dir) =>
        writeFiles(dir, {
          "node_modules/x/index.js": "x",
          "scratch.tmp": "t",
          ".agent-run/summary.md": "s",
          "a.txt": "a2\n",
        }),
      { exclude: [".agent-run"], skip: [".agent-run", "node_modules", "scratch.tmp"] },
    );
    expect(diff.files.map((f) => f.path)).toEqual(["a.txt"]);
  });

  test("a workspace in a subdirectory of a repository: paths relative to it, nothing outside it", async () => {
    const repo = gitRepo({ "outside.txt": "o\n", "pkg/in.txt": "i\n", ".gitignore": "*.log\n" });
    const root = path.join(repo, "pkg");
    const diff = await roundTrip(
      root,
      (dir) => {
        writeFiles(dir, { "in.txt": "i2\n", "x.log": "ignored by the parent's .gitignore\n" });
        fs.writeFileSync(path.join(repo, "outside.txt"), "changed outside\n");
      },
      { skip: ["x.log"] },
    );
    expect(diff.files.map((f) => f.path)).toEqual(["in.txt"]);
    expect(diff.patch).toContain("--- a/in.txt");
  });

  test("bytes are kept as they are: CRLF under text=auto, no final newline, latin1 text", async () => {
    const root = gitRepo({
      ".gitattributes": "* text=auto\n",
      "crlf.txt": "a\r\nb\r\n",
      "nofinal.txt": "x",
      "latin1.txt": Buffer.from("caf\xe9\n", "latin1"),
    });
    const diff = await roundTrip(root, (dir) =>
      writeFiles(dir, {
        "crlf.txt": "a\r\nB\r\n",
        "nofinal.txt": "y",
        "latin1.txt": Buffer.from("na\xefve caf\xe9\n", "latin1"),
      }),
    );
    expect(diff.patchEncoding).toBe("latin1");
    expect(diff.files.map((f) => f.path)).toEqual(["crlf.txt", "latin1.txt", "nofinal.txt"]);
  });

  test("nothing changed: an empty patch", async () => {
    const root = gitRepo({ "a.txt": "a\n" });
    sh(root, "echo dirty >> a.txt");
    const diff = await roundTrip(root, () => {});
    expect(diff).toEqual({ patch: "", files: [], diffstat: "" });
  });
});
