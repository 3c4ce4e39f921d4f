import { parseArgs } from "node:util";
import { AgentRunError } from "../core/errors.ts";
import { EXAMPLE_MODEL, EXAMPLE_OPENAI_MODEL } from "../providers/model-ref.ts";
import { parseDuration } from "../spec/duration.ts";

export type CliCommand =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "schema" }
  | { kind: "validate"; taskFile: string; vars: Record<string, string> }
  | {
      kind: "run";
      taskFile: string;
      vars: Record<string, string>;
      model?: string;
      prompt?: string;
      cwd?: string;
      out?: string;
      replay?: string;
      record?: string;
      json: boolean;
      maxTurns?: number;
      maxCostUsd?: number;
      timeoutMs?: number;
    };

/** A command-line mistake: printed with the usage hint, exit code 2. */
export class UsageError extends AgentRunError {
  constructor(message: string) {
    super("usage", "usage", message);
    this.name = "UsageError";
  }
}

export const HELP = `agent-run: run an LLM coding agent headless, from a YAML task spec.

Usage:
  agent-run <task.yml> [options]     run the task
  agent-run validate <task.yml>      check the spec and show the effective configuration (no model call)
  agent-run schema                   print the task spec's JSON Schema
  agent-run --help | --version

Options:
  --model P:ID        model to use, e.g. ${EXAMPLE_MODEL} (overrides the spec)
  --prompt TEXT       the task's prompt (overrides the spec)
  --var K=V           set {{ vars.K }} (repeatable)
  --cwd DIR           workspace root (overrides the spec's workdir)
  --out DIR           output folder (overrides outputs.dir)
  --replay FILE       play a recorded or scripted session instead of calling a model
  --record FILE       record the live session to FILE (replayable)
  --json              print the events as JSON lines on stdout
  --max-turns N       stop after N turns
  --max-cost USD      stop before a turn would exceed this cost
  --timeout DUR       stop the whole run after DUR (e.g. 90s, 20m)

Exit codes:
  0 done · 1 the task failed (before_stop checks still failing) · 2 usage or spec error
  3 a limit stopped it · 4 infrastructure error (provider, auth, crash) · 130/143 SIGINT/SIGTERM

Examples:
  agent-run examples/lint-fix/task.yml --replay examples/lint-fix/session.yml
  agent-run task.yml --model ${EXAMPLE_OPENAI_MODEL} --var extra="only src/" --max-cost 0.50
  agent-run validate task.yml
`;

/** Parses argv (without node and the script). Throws UsageError on a mistake. */
export function parseCli(argv: string[]): CliCommand {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  const vars = parseVars(values.var ?? []);
  const [first, second, ...rest] = positionals;
  if (first === "schema") {
    if (second !== undefined) throw new UsageError("'schema' takes no arguments");
    return { kind: "schema" };
  }
  if (first === "validate") {
    if (!second) throw new UsageError("'validate' needs a task file: agent-run validate <task.yml>");
    if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
    return { kind: "validate", taskFile: second, vars };
  }
  if (!first) throw new UsageError("missing the task file: agent-run <task.yml>");
  if (second !== undefined) throw new UsageError(`unexpected argument '${second}'`);
  return {
    kind: "run",
    taskFile: first,
    vars,
    json: values.json ?? false,
    ...(values.model !== undefined && { model: values.model }),
    ...(values.prompt !== undefined && { prompt: values.prompt }),
    ...(values.cwd !== undefined && { cwd: values.cwd }),
    ...(values.out !== undefined && { out: values.out }),
    ...(values.replay !== undefined && { replay: values.replay }),
    ...(values.record !== undefined && { record: values.record }),
    ...(values["max-turns"] !== undefined && { maxTurns: positiveInt("--max-turns", values["max-turns"]) }),
    ...(values["max-cost"] !== undefined && { maxCostUsd: positiveNumber("--max-cost", values["max-cost"]) }),
    ...(values.timeout !== undefined && { timeoutMs: duration(values.timeout) }),
  };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
      model: { type: "string" },
      prompt: { type: "string" },
      var: { type: "string", multiple: true },
      cwd: { type: "string" },
      out: { type: "string" },
      replay: { type: "string" },
      record: { type: "string" },
      json: { type: "boolean" },
      "max-turns": { type: "string" },
      "max-cost": { type: "string" },
      timeout: { type: "string" },
    },
  });
}

function parseVars(pairs: string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--var expects K=V, got '${pair}'`);
    vars[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return vars;
}

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`${flag} expects a positive whole number, got '${text}'`);
  return n;
}

function positiveNumber(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} expects a positive number, got '${text}'`);
  return n;
}

function duration(text: string): number {
  const ms = parseDuration(/^\d+(\.\d+)?$/.test(text) ? Number(text) : text);
  if (ms === undefined) throw new UsageError(`--timeout expects a duration like 90s or 20m, got '${text}'`);
  return ms;
}
