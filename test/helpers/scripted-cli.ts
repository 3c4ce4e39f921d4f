import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { type CliResult, startCli } from "./cli.ts";
import type { ScriptTurn } from "./trust.ts";

/** One line of events.jsonl, as far as these tests look. */
export interface EventLine {
  type: string;
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
  blocked?: boolean;
  blockReason?: string;
  message?: string;
  result?: { content: { type: string; text?: string }[]; details?: Record<string, unknown> };
}

export interface ScriptedCliRun extends CliResult {
  outDir: string;
  events: EventLine[];
  summary: string;
  usage: Record<string, unknown>;
}

/**
 * Runs the built CLI on `taskYaml` (written to `dir/task.yml`) with a replayed session of `turns`,
 * in `dir`. `whileRunning` is called once the child is started, with a signal aborted when it has
 * exited, and awaited before the outputs are read.
 */
export async function runScriptedCli(
  dir: string,
  taskYaml: string,
  turns: ScriptTurn[],
  options: {
    env?: NodeJS.ProcessEnv;
    /** Run the CLI as this uid (and gid). */
    asUser?: number;
    whileRunning?: (pid: number, exited: AbortSignal) => Promise<void>;
  } = {},
): Promise<ScriptedCliRun> {
  await writeFile(path.join(dir, "task.yml"), taskYaml);
  const replay = path.join(dir, ".replay.json");
  await writeFile(replay, JSON.stringify({ turns }));
  const { child, done } = startCli([path.join(dir, "task.yml"), "--replay", replay], {
    cwd: dir,
    ...(options.env && { env: options.env }),
    ...(options.asUser !== undefined && { uid: options.asUser }),
  });
  const exited = new AbortController();
  const watching = options.whileRunning?.(child.pid ?? 0, exited.signal);
  const result = await done;
  exited.abort();
  await watching;
  return { ...result, ...(await readRunOutputs(dir)) };
}

/** The default outputs dir of a run in `dir`: its events, usage.json and summary.md (empty when missing). */
export async function readRunOutputs(dir: string): Promise<{
  outDir: string;
  events: EventLine[];
  summary: string;
  usage: Record<string, unknown>;
}> {
  const outDir = path.join(dir, ".agent-run");
  const read = (name: string) => readFile(path.join(outDir, name), "utf8").catch(() => "");
  const events = (await read("events.jsonl"))
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EventLine);
  const usageText = await read("usage.json");
  return {
    outDir,
    events,
    summary: await read("summary.md"),
    usage: usageText ? (JSON.parse(usageText) as Record<string, unknown>) : {},
  };
}

/** The `tool_execution_end` events, in the order of the calls (turn, then position in it). */
export function toolEnds(events: EventLine[]): EventLine[] {
  const order = (event: EventLine) => (event.toolCallId ?? "").split("_").slice(1).map(Number);
  return events
    .filter((event) => event.type === "tool_execution_end")
    .sort((a, b) => {
      const [ta = 0, ia = 0] = order(a);
      const [tb = 0, ib = 0] = order(b);
      return ta - tb || ia - ib;
    });
}

/** The text of a tool result. */
export function resultText(event: EventLine): string {
  return (event.result?.content ?? []).map((part) => part.text ?? "").join("");
}
