/**
 * Runs a JavaScript action's bundle the way the Actions runner does: a child process with
 * `INPUT_*` variables (name upper-cased, spaces to `_`, hyphens kept: `INPUT_GITHUB-TOKEN`), a
 * `GITHUB_OUTPUT` file, a `GITHUB_STEP_SUMMARY` file, the event payload at `GITHUB_EVENT_PATH`;
 * its stdout is read for workflow commands as the runner reads it (see workflow-commands.ts).
 * Inputs not given get their `default` from the action.yml next to the bundle's folder, as the
 * runner fills them in (defaults that are expressions, `${{ … }}`, are left out).
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { type ParsedCommands, parseWorkflowCommands } from "./workflow-commands.ts";

export interface ActionRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /**
   * Parsed back from the GITHUB_OUTPUT file (a name set twice keeps its last value), over any
   * `::set-output::` commands the runner would have acted on in stdout.
   */
  outputs: Record<string, string>;
  /** The workflow commands in stdout the runner would have acted on (masks, annotations...). */
  commands: ParsedCommands;
  stepSummary: string;
}

export interface RunActionOptions {
  /** Path of the bundle, e.g. dist/index.js. */
  main: string;
  /** Inputs by their action.yml names. */
  inputs: Record<string, string>;
  eventName: string;
  payload: unknown;
  workspace: string;
  /** Extra environment (GITHUB_API_URL, provider base URLs...). */
  env?: Record<string, string>;
  /** Default: 60 000 ms. */
  timeoutMs?: number;
  /** Sends `signal` to the step once its stdout contains `whenStdoutHas` (as a cancelled job gets). */
  interrupt?: Interrupt;
}

export interface Interrupt {
  signal: NodeJS.Signals;
  whenStdoutHas: string;
  /**
   * A second signal this long after the first, as GitHub sends SIGTERM 7.5 s after SIGINT; or, with
   * `whenStdoutHas`, as soon as the step's stdout holds that text after the first.
   */
  second?: { signal: NodeJS.Signals; afterMs: number } | { signal: NodeJS.Signals; whenStdoutHas: string };
  /** Signal the step's whole process group (it then runs in a group of its own), not its process only. */
  group?: boolean;
  /** Runs first, with the step's pid, while the step is still running (to look at its processes). */
  before?: (pid: number) => Promise<void>;
}

/** The runner's name for an input's variable. */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
}

export async function runActionBundle(options: RunActionOptions): Promise<ActionRun> {
  const runnerDir = await mkdtemp(path.join(os.tmpdir(), "agent-run-runner-"));
  const outputFile = path.join(runnerDir, "output.txt");
  const summaryFile = path.join(runnerDir, "step-summary.md");
  const eventFile = path.join(runnerDir, "event.json");
  await writeFile(outputFile, "");
  await writeFile(summaryFile, "");
  await writeFile(eventFile, JSON.stringify(options.payload));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: options.eventName,
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_REPOSITORY: "octo-org/octo-repo",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: "4242",
    RUNNER_TEMP: runnerDir,
    ...options.env,
  };
  const inputs = {
    ...(await actionDefaults(path.join(path.dirname(options.main), "..", "action.yml"))),
    ...options.inputs,
  };
  for (const [name, value] of Object.entries(inputs)) env[inputVariable(name)] = value;
  const child = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const proc = spawn(process.execPath, [options.main], {
      cwd: options.workspace,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.interrupt?.group === true,
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    proc.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    // As the runner's step timeout: SIGTERM.
    const timer = setTimeout(() => proc.kill("SIGTERM"), options.timeoutMs ?? 60_000);
    proc.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    const interrupt = options.interrupt;
    if (interrupt) {
      const send = (signal: NodeJS.Signals) => {
        if (proc.pid === undefined || proc.exitCode !== null) return;
        if (interrupt.group) process.kill(-proc.pid, signal);
        else proc.kill(signal);
      };
      // What the step prints from now on, until `text` is in it; then `then`, once.
      const watchFor = (text: string, then: () => void) => {
        let seen = "";
        const look = (chunk: string) => {
          seen += chunk;
          if (!seen.includes(text)) return;
          proc.stdout.off("data", look);
          then();
        };
        proc.stdout.on("data", look);
      };
      watchFor(interrupt.whenStdoutHas, () => {
        void (async () => {
          if (interrupt.before && proc.pid !== undefined) await interrupt.before(proc.pid);
          send(interrupt.signal);
          const second = interrupt.second;
          if (second && "afterMs" in second) setTimeout(() => send(second.signal), second.afterMs);
          else if (second) watchFor(second.whenStdoutHas, () => send(second.signal));
        })();
      });
    }
  });
  const commands = parseWorkflowCommands(child.stdout);
  return {
    exitCode: child.code,
    stdout: child.stdout,
    stderr: child.stderr,
    outputs: { ...commands.outputs, ...parseOutputFile(await readFile(outputFile, "utf8")) },
    commands,
    stepSummary: await readFile(summaryFile, "utf8"),
  };
}

/** The literal input defaults of an action.yml; {} when there is none. */
async function actionDefaults(file: string): Promise<Record<string, string>> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return {};
  const action = parse(text) as { inputs?: Record<string, { default?: unknown }> };
  const out: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs ?? {})) {
    if (input.default === undefined || input.default === null) continue;
    const value = String(input.default);
    if (!value.includes("${{")) out[name] = value;
  }
  return out;
}

/** Parses `name=value` lines and `name<<DELIMITER ... DELIMITER` blocks, as the runner does. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line === "") continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc?.[1] && heredoc[2]) {
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) value.push(lines[i] ?? "");
      outputs[heredoc[1]] = value.join("\n");
      continue;
    }
    const eq = line.indexOf("=");
    if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return outputs;
}
