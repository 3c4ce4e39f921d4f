/**
 * The end of a run as users wait for it: the bundled CLI (`--json`) against the mock LLM, from the
 * model's last reply (`agent_end` on stdout) to patch.diff, usage.json and summary.md written
 * (`run_end`), and to the process's exit. Three changes made by one bash call: one line in a
 * 20,000-file repository, 125,000 new files (issue 13: such a run got an empty patch), one 300 MB
 * file of random bytes. Each twice: the last reply at once (nothing was precomputed: the worst
 * case), and after a 5 s model call, during which the turn-end checkpoint computes the patch.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startMockLlm } from "../test/mock-llm/server.ts";
import { buildBundle } from "./e2e/bundle.ts";
import { cliEnv } from "./e2e/workspace.ts";

/** A change made in turn 1 of the run, by one bash command in the workspace. */
interface Change {
  label: string;
  /** Files the repository holds at the start. */
  startFiles: number;
  command: string;
  /** Files the patch must name. */
  files: number;
}

// Node 20 or later is on PATH wherever the bench runs (the machine's own node).
const MANY = 125_000;
const CHANGES: Change[] = [
  {
    label: "one line in a 20,000-file repository",
    startFiles: 20_000,
    command: "echo changed >> pkg7/file7.ts",
    files: 1,
  },
  {
    label: `${MANY.toLocaleString("en")} new files`,
    startFiles: 10,
    command: `node -e 'const fs=require("fs");for(let i=0;i<${MANY};i++){const d="node_modules/p"+Math.floor(i/1000);if(i%1000===0)fs.mkdirSync(d,{recursive:true});fs.writeFileSync(d+"/i"+i+".js","module.exports = "+i+";\\n")}'`,
    files: MANY,
  },
  { label: "a 300 MB file", startFiles: 10, command: "head -c 314572800 /dev/urandom > big.bin", files: 1 },
];

interface Timing {
  /** agent_end → run_end (the three outputs written), ms. */
  outputsMs: number;
  /** agent_end → exit, ms. */
  exitMs: number;
}

async function makeRepo(files: number): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), "agent-run-bench-end-"));
  await writeFile(
    path.join(root, "task.yml"),
    "model: anthropic:claude-sonnet-5-5\nprompt: change it\ntools: [bash]\nsandbox: off\n",
  );
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `pkg${i % 200}`);
    if (i < 200) await mkdir(dir);
    await writeFile(path.join(dir, `file${i}.ts`), `export const v${i} = ${i};\n`);
  }
  await run(
    "sh",
    // No automatic gc: 20,000 new loose objects would start one in the background, still writing
    // packs into .git when the run is over and the folder is being removed (ENOTEMPTY).
    [
      "-c",
      "git init -q && git add -A && git -c gc.auto=0 -c maintenance.auto=false -c user.name=b -c user.email=b@b commit -qm init",
    ],
    root,
  );
  return root;
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`))));
  });
}

async function endOfRun(cli: string, change: Change, lastReplyDelayMs: number): Promise<Timing> {
  const root = await makeRepo(change.startFiles);
  const mock = await startMockLlm({
    script: [
      { toolCalls: [{ name: "bash", arguments: { command: change.command } }] },
      { text: "Done.", firstByteDelayMs: lastReplyDelayMs },
    ],
    recordBodies: false,
  });
  try {
    const seen = new Map<string, number>();
    const exited = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, [cli, "task.yml", "--json"], {
        cwd: root,
        env: cliEnv(mock.url),
        stdio: ["ignore", "pipe", "ignore"],
      });
      let pending = "";
      child.stdout.on("data", (chunk: Buffer) => {
        const now = performance.now();
        pending += chunk.toString();
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) {
          const type = /"type":"([a-z_]+)"/.exec(line)?.[1];
          if (type && !seen.has(type)) seen.set(type, now);
        }
      });
      child.on("error", reject);
      child.on("close", (code) => {
        if (code === 0) resolve(performance.now());
        else reject(new Error(`${change.label}: agent-run exited ${code}`));
      });
    });
    const usage = JSON.parse(readFileSync(path.join(root, ".agent-run", "usage.json"), "utf8")) as {
      files_changed: number;
    };
    if (usage.files_changed !== change.files)
      throw new Error(`${change.label}: ${usage.files_changed} files changed, expected ${change.files}`);
    const agentEnd = seen.get("agent_end");
    const runEnd = seen.get("run_end");
    if (agentEnd === undefined || runEnd === undefined)
      throw new Error(`${change.label}: no agent_end or run_end`);
    return { outputsMs: runEnd - agentEnd, exitMs: exited - agentEnd };
  } finally {
    await mock.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Prints one heading per change, one line per last-reply timing. `only` selects changes by label prefix. */
export async function benchEndOfRun(runs: number, only?: string): Promise<void> {
  const bundle = await buildBundle();
  try {
    for (const change of CHANGES.filter((c) => !only || c.label.startsWith(only))) {
      console.log(`end of run (bundled CLI), ${change.label}, last reply → outputs written, → exit:`);
      for (const delay of [0, 5000]) {
        const timings: Timing[] = [];
        for (let i = 0; i < runs; i++) timings.push(await endOfRun(bundle.cli, change, delay));
        const outputs = timings.map((t) => t.outputsMs);
        const exits = timings.map((t) => t.exitMs);
        const label = delay === 0 ? "last reply at once" : `last reply after a ${delay / 1000} s model call`;
        console.log(
          `  ${label}: median ${ms(median(outputs))} (${outputs.map(ms).join(", ")}); exit ${ms(median(exits))}`,
        );
      }
    }
  } finally {
    await rm(bundle.dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function ms(value: number): string {
  return `${value.toFixed(0)} ms`;
}
