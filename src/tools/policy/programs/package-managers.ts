/**
 * npm, npx, pnpm, pnpx, yarn, bun and bunx. Their command lines set any configuration key
 * (`--node-options`, `--script-shell`, `--prefix`, `--userconfig`, `--global`, pnpm's
 * `--config.<key>`…), so every option not on a short harmless list is risky. `npx cmd`, `npm exec`,
 * `pnpm exec|dlx`, `yarn exec|dlx` and `bunx` run a program whose own options are judged (and
 * `-c`/`--call`/`--shell-mode` code as shell code); the words a script receives (`npm run lint --
 * --config x`) are judged as options of the program that script runs (see scripts.ts).
 */
import { type OptionTable, scanOptions } from "../options.ts";
import { type Analysis, emptyAnalysis, type Word } from "../types.ts";
import { innerCall, type ProgramAnalyzer, type ProgramInput } from "./program.ts";
import { forwardToScript } from "./scripts.ts";

const OPEN_SET =
  "sets configuration that can make it run other code (`--node-options`, `--script-shell`) or write elsewhere (`--prefix`, `--global`); only a few harmless options are accepted unnamed";

/** Options these tools take that are harmless wherever they stand. */
const HARMLESS = [
  "s",
  "silent",
  "q",
  "quiet",
  "d",
  "dd",
  "ddd",
  "loglevel",
  "verbose",
  "if-present",
  "ignore-scripts",
  "color",
  "no-color",
  "json",
  "parseable",
  "long",
  "workspaces",
  "ws",
  "w",
  "workspace",
  "include-workspace-root",
  "iwr",
  "offline",
  "prefer-offline",
  "prefer-online",
  "no-audit",
  "no-fund",
  "no-progress",
  "progress",
  "yes",
  "y",
  "no",
  "foreground-scripts",
  "dry-run",
  "reporter",
  "recursive",
  "r",
  "filter",
  "F",
  "parallel",
  "stream",
  "sequential",
  "aggregate-output",
  "no-bail",
  "frozen-lockfile",
  "immutable",
  // install, ls, outdated, audit, version
  "save",
  "S",
  "save-dev",
  "D",
  "save-exact",
  "E",
  "save-optional",
  "O",
  "save-peer",
  "no-save",
  "legacy-peer-deps",
  "strict-peer-deps",
  "force",
  "omit",
  "include",
  "production",
  "package-lock-only",
  "no-package-lock",
  "prefer-dedupe",
  "all",
  "depth",
  "audit-level",
  "no-git-tag-version",
];

const RISKY: Record<string, string> = {
  "node-options": "sets the Node.js options scripts run with (`--import`, `--require` run any code)",
  "script-shell": "sets the shell scripts run in, which can be any program",
  c: "runs the shell command it is given",
  call: "runs the shell command it is given",
  "shell-mode": "runs the shell command it is given",
  p: "installs and runs any package",
  package: "installs and runs any package",
  prefix: "runs the package (and its scripts) of another folder",
  C: "runs the package (and its scripts) of another folder",
  dir: "runs the package (and its scripts) of another folder",
  cwd: "runs the package (and its scripts) of another folder",
  userconfig: "reads configuration from a file it names",
  globalconfig: "reads configuration from a file it names",
  g: "works on the global installation, outside the workspace",
  global: "works on the global installation, outside the workspace",
  require: "loads the module it names into every script",
};

const VALUES = [
  "loglevel",
  "omit",
  "include",
  "depth",
  "audit-level",
  "w",
  "workspace",
  "reporter",
  "filter",
  "F",
  "node-options",
  "script-shell",
  "c",
  "call",
  "p",
  "package",
  "prefix",
  "C",
  "dir",
  "cwd",
  "userconfig",
  "globalconfig",
  "require",
];

function table(program: string, stopAtOperand: boolean): OptionTable {
  return {
    program,
    values: VALUES,
    risky: RISKY,
    onlyHarmless: { names: HARMLESS, why: OPEN_SET },
    stopAtOperand,
  };
}

/** Subcommands that run a script named by the next word, or by themselves. */
const RUN = new Set(["run", "run-script", "rum", "urn"]);
const SELF_SCRIPTS = new Set(["test", "t", "tst", "start", "stop", "restart"]);
const EXEC = new Set(["exec", "x", "dlx"]);
const RISKY_SUBCOMMANDS: Record<string, string> = {
  config: "changes configuration (`script-shell`, `node-options`) that later commands run with",
  set: "changes configuration (`script-shell`, `node-options`) that later commands run with",
  c: "changes configuration (`script-shell`, `node-options`) that later commands run with",
  edit: "runs an editor",
  explore: "runs a shell command in a package folder",
  init: "downloads and runs a package initializer",
  create: "downloads and runs a package initializer",
  innit: "downloads and runs a package initializer",
  link: "writes links into the global installation",
  ln: "writes links into the global installation",
  node: "runs Node.js with any options",
  workspace: "runs the command in another package",
  workspaces: "runs the command in other packages",
};
/** yarn and bun run `exec`'s words as a shell command line. */
const SHELL_EXEC = new Set(["yarn", "bun"]);

/** npm, pnpm, yarn and bun: `<tool> [options] <subcommand> [args]`. */
export const analyzePackageManager: ProgramAnalyzer = (input) => {
  const { call, name } = input;
  const words = call.words;
  const analysis = emptyAnalysis();
  const head = scanOptions(words, 1, table(name, true));
  analysis.risks.push(...head.risks);
  const subcommand = words[head.next];
  analysis.normalized = [words[0]!, ...words.slice(head.next)];
  if (subcommand === undefined || head.risks.some((risk) => risk.word === subcommand)) return analysis;
  const rest = words.slice(head.next + 1);
  const sub = name === "npm" ? npmCommand(subcommand.text) : subcommand.text;
  const riskyWhy =
    RISKY_SUBCOMMANDS[sub] ??
    (SHELL_EXEC.has(name) && sub === "exec" ? "runs a shell command line" : undefined);
  if (riskyWhy !== undefined) {
    analysis.risks.push({
      word: subcommand,
      chars: subcommand.text.length,
      why: riskyWhy,
    });
    return analysis;
  }
  if (EXEC.has(sub)) return withProgram(analysis, input, rest, `${name} ${sub}`);
  if (RUN.has(sub) || SELF_SCRIPTS.has(sub)) {
    const self = SELF_SCRIPTS.has(sub);
    return withScript(analysis, input, self ? subcommand : rest[0], self ? rest : rest.slice(1));
  }
  // pnpm, yarn and bun run a script or an installed program for a name they do not know as a command.
  if (name !== "npm" && !isKnownSubcommand(name, sub)) {
    if (input.env.packageScripts()?.[sub] !== undefined) return withScript(analysis, input, subcommand, rest);
    return withProgram(analysis, input, [subcommand, ...rest], name);
  }
  if (name === "npm") analysis.risks.push(...scanOptions(rest, 0, table("npm", false)).risks);
  return analysis;
};

/** npx, pnpx and bunx: `<tool> [options] <program> [args]`. */
export const analyzeNpx: ProgramAnalyzer = (input) => {
  const analysis = emptyAnalysis();
  const words = input.call.words;
  const head = scanOptions(words, 1, table(input.name, true));
  analysis.risks.push(...head.risks);
  addCode(analysis, input, head.options);
  analysis.normalized = [words[0]!, ...words.slice(head.next)];
  const program = words.slice(head.next);
  if (program.length > 0) analysis.inner.push({ call: innerCall(input.call, program), mode: "within" });
  return analysis;
};

/**
 * `npm exec`, `pnpm exec|dlx`, `yarn dlx`: the tool's options, then the program. npm reads every
 * option before `--` as its own, wherever it stands; the others stop at the program's name.
 */
function withProgram(analysis: Analysis, input: ProgramInput, words: Word[], by: string): Analysis {
  let program: Word[];
  if (by === input.name) program = words;
  else if (input.name === "npm") {
    const dashDash = words.findIndex((word) => word.literal && word.text === "--");
    const own = scanOptions(dashDash < 0 ? words : words.slice(0, dashDash), 0, table(by, false));
    analysis.risks.push(...own.risks);
    addCode(analysis, input, own.options);
    program = dashDash < 0 ? own.operands : [...own.operands, ...words.slice(dashDash + 1)];
  } else {
    const own = scanOptions(words, 0, table(by, true));
    analysis.risks.push(...own.risks);
    addCode(analysis, input, own.options);
    program = words.slice(own.next);
  }
  if (program.length > 0) analysis.inner.push({ call: innerCall(input.call, program), mode: "within" });
  return analysis;
}

function addCode(analysis: Analysis, input: ProgramInput, options: { name: string; value?: Word }[]): void {
  for (const option of options) {
    if (["c", "call", "shell-mode"].includes(option.name) && option.value) {
      analysis.scripts.push({ code: option.value, assigns: input.call.assigns, mode: "within" });
    }
  }
}

function withScript(
  analysis: Analysis,
  input: ProgramInput,
  script: Word | undefined,
  args: Word[],
): Analysis {
  if (script === undefined) return analysis;
  // npm reads options after the script name as its own until `--`; pnpm, yarn and bun pass them on.
  let forwarded = args;
  if (input.name === "npm") {
    const scan = scanOptions(args, 0, table("npm", false));
    analysis.risks.push(...scan.risks);
    forwarded = scan.operands;
  }
  forwardToScript(analysis, input, script, forwarded);
  return analysis;
}

const NPM_COMMANDS =
  "access adduser approve-scripts audit bugs cache ci completion config dedupe deny-scripts deprecate diff dist-tag docs doctor edit exec explain explore find-dupes fund get help help-search init install install-ci-test install-scripts install-test link ll login logout ls org outdated owner pack ping pkg prefix profile prune publish query rebuild repo restart root run sbom search set shrinkwrap stage star stars start stop team test token trust undeprecate uninstall unpublish unstar update version view whoami".split(
    " ",
  );
const NPM_ALIASES: Record<string, string> = {
  "run-script": "run",
  rum: "run",
  urn: "run",
  x: "exec",
  c: "config",
  create: "init",
  innit: "init",
  ln: "link",
  t: "test",
  tst: "test",
};

/** npm's name for a subcommand: an alias, or the one command a prefix stands for (npm accepts both). */
function npmCommand(written: string): string {
  if (NPM_ALIASES[written]) return NPM_ALIASES[written];
  if (NPM_COMMANDS.includes(written)) return written;
  const candidates = NPM_COMMANDS.filter((command) => command.startsWith(written));
  return candidates.length === 1 ? candidates[0]! : written;
}

const PNPM =
  "add audit bin ci config create dedupe deploy dlx env exec fetch import init install install-test licenses link list ls outdated pack patch patch-commit prune publish rebuild remove rm root run setup start store test unlink update up why";
const YARN =
  "add audit autoclean bin cache check config constraints create dedupe dlx exec explain global help import info init install licenses link list login logout node npm outdated owner pack patch plugin policies publish rebuild remove run search set stage tag team test unlink unplug up upgrade upgrade-interactive version versions why workspace workspaces";
const BUN = "add build create exec init install link outdated pm publish remove run test update upgrade x";

function isKnownSubcommand(tool: string, sub: string): boolean {
  const list = tool === "pnpm" ? PNPM : tool === "yarn" ? YARN : BUN;
  return list.split(" ").includes(sub);
}
