import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { BUILT_CLI } from "./built.ts";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
/** What users run: the bundle test/global-setup.ts built from the current sources. */
const BIN = BUILT_CLI;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundled CLI as a child process, as users run it. */
export function startCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; uid?: number; bin?: string } = {},
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: {
      ...process.env,
      PATH: `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`,
      NO_COLOR: "1",
      GITHUB_ACTIONS: "",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    // As another user (a root test checking what a non-root runner gets).
    ...(options.uid !== undefined && { uid: options.uid, gid: options.uid }),
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<CliResult>((resolve) => {
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; bin?: string } = {},
): Promise<CliResult> {
  return startCli(args, options).done;
}

export async function tempWorkspace(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-cli-"));
  for (const [name, content] of Object.entries(files)) {
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}

export async function copyExample(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `agent-run-${name}-`));
  await cp(path.join(ROOT, "examples", name), dir, {
    recursive: true,
    filter: (src) => !/[\\/](\.agent-run|node_modules)$/.test(src),
  });
  return dir;
}

export async function readJson(file: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
}

/** Whether a process is running (a zombie waiting to be reaped counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Waits up to `ms` for a process to be gone; returns whether it is. */
export async function waitGone(pid: number, ms = 2000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !isAlive(pid);
}
