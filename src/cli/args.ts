import { parseArgs } from "node:util";
import { AgentRunError } from "../core/errors.ts";
import { EXAMPLE_MODEL, EXAMPLE_OPENAI_MODEL } from "../providers/model-ref.ts";
import { parseDuration, suggestDuration } from "../spec/duration.ts";
import { closest } from "../spec/suggest.ts";

/** What the flags change of a task: the same for a run and for `validate`. */
export interface TaskOverrides {
  model?: string;
  prompt?: string;
  cwd?: string;
  out?: string;
  replay?: string;
  maxTurns?: number;
  maxCostUsd?: number;
  timeoutMs?: number;
}

export type CliCommand =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "schema" }
  | ({ kind: "validate"; taskFile: string; vars: Record<string, string>; mcp: boolean } & TaskOverrides)
  | ({
      kind: "run";
      taskFile: string;
      vars: Record<string, string>;
      record?: string;
      resume?: string;
      json: boolean;
    } & TaskOverrides);

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
  agent-run validate <task.yml> [options]
                                     check the spec (with the options but --record and --json) and
                                     show the effective configuration; calls no model; with --mcp,
                                     also start its MCP servers and list their tools
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
  --resume DIR        continue the run whose outputs are in DIR: its patch is applied first
                      unless the workspace holds it, its conversation goes on (--prompt: a follow-up)
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
  agent-run task.yml --resume previous-run/ --max-turns 20
  agent-run validate task.yml
`;

/** Parses argv (without node and the script). Throws UsageError on a mistake. */
export function parseCli(argv: string[]): CliCommand {
  const { values, positionals } = parse(argv);
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  const vars = parseVars(strings(values.var));
  const [first, second, ...rest] = positionals;
  if (first === "schema") {
    if (second !== undefined) throw new UsageError("'schema' takes no arguments");
    return { kind: "schema" };
  }
  const text = (name: string) => string(values[name]);
  const overrides: TaskOverrides = {
    ...optional("model", text("model")),
    ...optional("prompt", text("prompt")),
    ...optional("cwd", nonEmpty("--cwd", text("cwd"))),
    ...optional("out", nonEmpty("--out", text("out"))),
    ...optional("replay", nonEmpty("--replay", text("replay"))),
    ...optional(
      "maxTurns",
      mapDefined(text("max-turns"), (t) => positiveInt("--max-turns", t)),
    ),
    ...optional(
      "maxCostUsd",
      mapDefined(text("max-cost"), (t) => positiveNumber("--max-cost", t)),
    ),
    ...optional("timeoutMs", mapDefined(text("timeout"), duration)),
  };
  if (first === "validate") {
    if (!second) throw new UsageError("'validate' needs a task file: agent-run validate <task.yml>");
    if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
    // Flags that change the task are checked as a run would use them; these act on a run only.
    for (const flag of ["record", "resume", "json"] as const) {
      if (values[flag] !== undefined)
        throw new UsageError(`'validate' runs nothing, so --${flag} does not apply to it`);
    }
    return { kind: "validate", taskFile: second, vars, mcp: values.mcp === true, ...overrides };
  }
  if (values.mcp) throw new UsageError("--mcp is an option of 'agent-run validate'");
  if (!first) throw new UsageError("missing the task file: agent-run <task.yml>");
  if (second !== undefined) throw new UsageError(`unexpected argument '${second}'`);
  return {
    kind: "run",
    taskFile: first,
    vars,
    json: values.json === true,
    ...overrides,
    ...optional("record", nonEmpty("--record", text("record"))),
    ...optional("resume", nonEmpty("--resume", text("resume"))),
  };
}

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
  model: { type: "string" },
  prompt: { type: "string" },
  var: { type: "string", multiple: true },
  cwd: { type: "string" },
  out: { type: "string" },
  replay: { type: "string" },
  record: { type: "string" },
  resume: { type: "string" },
  json: { type: "boolean" },
  mcp: { type: "boolean" },
  "max-turns": { type: "string" },
  "max-cost": { type: "string" },
  timeout: { type: "string" },
} as const satisfies Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

type OptionName = keyof typeof OPTIONS;

/**
 * `parseArgs` without `strict`, then our own checks over its tokens, so each mistake has a plain
 * message of ours (its own say "To specify an option argument starting with a dash use
 * '--max-turns=-XYZ'" for `--max-turns -1`): unknown options (with a suggestion), a value missing
 * or given to a flag that takes none, and a single-valued option given twice.
 */
function parse(argv: string[]): { values: Record<string, unknown>; positionals: string[] } {
  // `--max-turns -1`: a value that looks like a negative number is the option's value, so that
  // the number check can say what is wrong with it.
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (arg === "--") {
      joined.push(...argv.slice(i));
      break;
    }
    const option = /^--([a-z-]+)$/.exec(arg)?.[1];
    if (option && isStringOption(option) && next !== undefined && /^-\.?\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  const { values, positionals, tokens } = parseArgs({
    args: joined,
    allowPositionals: true,
    strict: false,
    tokens: true,
    options: OPTIONS,
  });
  const seen = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const name = token.name;
    if (!Object.hasOwn(OPTIONS, name)) {
      const known = Object.keys(OPTIONS).map((option) => `--${option}`);
      const near = closest(token.rawName, known);
      throw new UsageError(`unknown option '${token.rawName}'${near ? ` — did you mean '${near}'?` : ""}`);
    }
    const option = OPTIONS[name as OptionName];
    if (option.type === "string" && token.value === undefined) {
      throw new UsageError(`${token.rawName} needs a value: ${token.rawName} ${valueHint(name)}`);
    }
    if (option.type === "boolean" && token.value !== undefined) {
      throw new UsageError(`${token.rawName} takes no value, got '${token.value}'`);
    }
    if (option.type === "string" && !("multiple" in option)) {
      const before = seen.get(name);
      if (before !== undefined && before !== token.value) {
        throw new UsageError(`--${name} is given twice ('${before}' and '${token.value}'); give it once`);
      }
      seen.set(name, token.value ?? "");
    }
  }
  return { values, positionals };
}

function isStringOption(name: string): boolean {
  return Object.hasOwn(OPTIONS, name) && OPTIONS[name as OptionName].type === "string";
}

function valueHint(name: string): string {
  const hints: Record<string, string> = {
    model: "P:ID",
    prompt: "TEXT",
    var: "K=V",
    cwd: "DIR",
    out: "DIR",
    replay: "FILE",
    record: "FILE",
    "max-turns": "N",
    "max-cost": "USD",
    timeout: "DUR",
  };
  return hints[name] ?? "VALUE";
}

function string(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function mapDefined<T>(text: string | undefined, parse: (text: string) => T): T | undefined {
  return text === undefined ? undefined : parse(text);
}

function nonEmpty(flag: string, text: string | undefined): string | undefined {
  if (text !== undefined && text.trim() === "")
    throw new UsageError(`${flag} needs a value, got an empty one`);
  return text;
}

function parseVars(pairs: string[]): Record<string, string> {
  // No prototype: `--var __proto__=x` is a key like any other, which the spec check then refuses.
  const vars: Record<string, string> = Object.create(null);
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--var expects K=V, got '${pair}'`);
    vars[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return vars;
}

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`${flag} expects a positive whole number, got '${text}'`);
  return n;
}

function positiveNumber(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(text) || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`${flag} expects a positive number, got '${text}'`);
  return n;
}

function duration(text: string): number {
  const ms = parseDuration(/^\d+(\.\d+)?$/.test(text) ? Number(text) : text);
  if (ms === undefined || !Number.isFinite(ms)) {
    const near = suggestDuration(text);
    throw new UsageError(
      `--timeout expects a duration like 90s or 20m, got '${text}'${near ? ` — did you mean '${near}'?` : ""}`,
    );
  }
  return ms;
}
