import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import type { CompactRunEvent as RunEvent } from "../../src/run/compact-event.ts";
import { runTask } from "../../src/run/run-task.ts";
import type { RunResult, RunTaskOptions } from "../../src/run/types.ts";

/** A temp workspace holding `files`; with `git`, a repository with one commit. */
export async function trustWorkspace(
  files: Record<string, string>,
  options: { git?: boolean; extraheader?: string } = {},
): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-trust-"));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  if (options.git || options.extraheader) {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
    git("init", "-q");
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A");
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "start", "--allow-empty");
    if (options.extraheader) git("config", "http.https://github.com/.extraheader", options.extraheader);
  }
  return dir;
}

/** One scripted turn of a replay file. */
export interface ScriptTurn {
  text?: string;
  /** `arguments_raw` plays a call as sent, unchecked: a made-up tool, arguments a tool refuses. */
  tool_calls?: (
    | { name: string; arguments: Record<string, unknown> }
    | { name: string; arguments_raw: string }
  )[];
}

/** Runs `taskYaml` in `dir` in-process with a scripted session; collects the events. */
export async function runScripted(
  dir: string,
  taskYaml: string,
  turns: ScriptTurn[],
  options: Partial<RunTaskOptions> = {},
): Promise<{ result: RunResult; events: RunEvent[] }> {
  await writeFile(path.join(dir, "task.yml"), taskYaml);
  const replay = path.join(await mkdtemp(path.join(os.tmpdir(), "agent-run-replay-")), "s.json");
  await writeFile(replay, JSON.stringify({ turns }));
  const events: RunEvent[] = [];
  const result = await runTask({
    taskFile: path.join(dir, "task.yml"),
    replay,
    onEvent: (event) => events.push(event),
    ...options,
  });
  await rm(path.dirname(replay), { recursive: true, force: true });
  return { result, events };
}

/** The text the model got back from each tool call, in order. */
export function toolOutputs(events: RunEvent[]): string[] {
  return events.flatMap((event) =>
    event.type === "tool_execution_end"
      ? [event.result.content.map((part) => (part.type === "text" ? part.text : "")).join("")]
      : [],
  );
}

/** A loopback TCP listener counting every connection and byte it receives. */
export async function startListener(): Promise<{
  port: number;
  connections: number;
  bytes: number;
  close(): Promise<void>;
}> {
  const state = { connections: 0, bytes: 0 };
  const server: Server = createServer((socket) => {
    state.connections++;
    socket.on("data", (chunk) => {
      state.bytes += chunk.length;
      socket.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    get connections() {
      return state.connections;
    },
    get bytes() {
      return state.bytes;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** PIDs of host processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmdline.includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Every output file of a run, concatenated. */
export async function allOutputs(result: RunResult): Promise<string> {
  const files = [result.outputs.patch, result.outputs.usage, result.outputs.summary, result.outputs.events];
  return (await Promise.all(files.map((file) => readFile(file, "utf8")))).join("\n");
}
