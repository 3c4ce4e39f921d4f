/**
 * A big workspace (issue 18): a folder (not a repository) of 10,000 files of 400 bytes, which the
 * start's snapshot takes seconds to `git add` on a small machine (every object written: see
 * GIT_MALLOC_TUNABLES in src/output/git.ts). The model explores first, as most do: a `read`, then
 * a `grep` over every file, then its answer. Rows: each of the two tool turns (reply to next request), the
 * last request → exit, and the whole run; the snapshot still being taken does not hold up the
 * tools that change no file, and a run that changed nothing stops it at the end.
 */
import { execFileSync } from "node:child_process";
import { cp, mkdir, writeFile } from "node:fs/promises";
import { type BenchContext, runCliOnce } from "./run-cli.ts";
import { DONE } from "./sessions.ts";
import { type BenchRow, rowOf } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace } from "./workspace.ts";

const FOLDERS = 100;
const FILES_PER_FOLDER = 100;

/** A temp folder of FOLDERS × FILES_PER_FOLDER files of 400 bytes. */
async function filesTemplate(): Promise<string> {
  const template = await tempWorkspace();
  for (let d = 0; d < FOLDERS; d++) {
    await mkdir(`${template}/d${d}`);
    for (let f = 0; f < FILES_PER_FOLDER; f++) {
      await writeFile(`${template}/d${d}/f${f}.txt`, `file ${d}/${f}\n`.repeat(20));
    }
  }
  return template;
}

export async function bigWorkspace(ctx: BenchContext, runs: number): Promise<BenchRow[]> {
  // Made once and copied per run: writing 20,000 files costs more than copying them.
  const template = await filesTemplate();
  const read: number[] = [];
  const grep: number[] = [];
  const end: number[] = [];
  const wall: number[] = [];
  for (let run = 0; run < runs; run++) {
    const workspace = await tempWorkspace();
    await cp(template, workspace, { recursive: true });
    await writeFile(`${workspace}/task.yml`, taskYaml({ wire: "openai", tools: ["read", "grep", "write"] }));
    await writeFile(`${workspace}/main.txt`, "hello\n");
    const calls = [
      { name: "read", arguments: { path: "main.txt" } },
      { name: "grep", arguments: { pattern: "hello", glob: "*.txt" } },
    ];
    const what = "big workspace: read, grep";
    const result = await runCliOnce(
      ctx,
      workspace,
      (index) => {
        const call = calls[index];
        return call ? { toolCalls: [call] } : DONE;
      },
      { what },
    );
    await expectRun(workspace, 3, 2, what);
    const at = result.requestsAt;
    read.push((at[1] ?? Number.NaN) - (at[0] ?? Number.NaN));
    grep.push((at[2] ?? Number.NaN) - (at[1] ?? Number.NaN));
    end.push(result.lastRequestToExitMs);
    wall.push(result.wallMs);
  }
  const s = `big workspace (${FOLDERS * FILES_PER_FOLDER} files)`;
  return [
    rowOf(s, "first tool turn (read) ms", read),
    rowOf(s, "second tool turn (grep over every file) ms", grep),
    rowOf(s, "last request → exit ms", end),
    rowOf(s, "wall ms", wall),
  ];
}

/**
 * A big repository: the same 10,000 files committed, cloned for each run, then `git status` a
 * second later, as a workflow's earlier git commands leave a checkout (git takes a file written in
 * the second its index was written as "racily clean" and reads it again, until a command rewrites
 * the index later: right after a clone, most of these). The model writes a file at once, which
 * waits for the start's snapshot, then answers. Rows: that first tool turn, and the whole run.
 */
export async function bigRepository(ctx: BenchContext, runs: number): Promise<BenchRow[]> {
  const template = await filesTemplate();
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-c", "user.email=bench@localhost", "-c", "user.name=bench", ...args], {
      cwd,
      stdio: "ignore",
    });
  git(template, "init", "-q");
  git(template, "add", "-A");
  git(template, "commit", "-qm", "files");
  const write: number[] = [];
  const wall: number[] = [];
  for (let run = 0; run < runs; run++) {
    const workspace = await tempWorkspace();
    git(workspace, "clone", "-q", template, ".");
    await new Promise((resolve) => setTimeout(resolve, 1100));
    git(workspace, "status", "--porcelain");
    await writeFile(`${workspace}/task.yml`, taskYaml({ wire: "openai", tools: ["read", "write"] }));
    const what = "big repository: write";
    const result = await runCliOnce(
      ctx,
      workspace,
      (index) =>
        index === 0
          ? { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "written\n" } }] }
          : DONE,
      { what },
    );
    await expectRun(workspace, 2, 1, what);
    const at = result.requestsAt;
    write.push((at[1] ?? Number.NaN) - (at[0] ?? Number.NaN));
    wall.push(result.wallMs);
  }
  const s = `big repository (${FOLDERS * FILES_PER_FOLDER} committed files, a checkout git has looked at)`;
  return [rowOf(s, "first tool turn (write: waits for the snapshot) ms", write), rowOf(s, "wall ms", wall)];
}
