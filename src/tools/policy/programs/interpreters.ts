/**
 * Interpreters: node (and tsx, ts-node), python, perl, ruby, php. The script they run is the
 * pattern's business (`node scripts/check.js`); the options before it are theirs, and an open set
 * (node takes any V8 flag), so every option not on a harmless list is risky: the ones that run
 * code they are given (`-e`, `-p`, `-c`, `-r`), load modules (`--import`, `--require`,
 * `--loader`, `-M`), read settings from a file (`--env-file`, `-d auto_prepend_file=`) or write
 * files (`--redirect-warnings`, `--report-dir`). A script read from stdin (`-`) is risky too.
 * `python -m <module>` runs that module as a program, judged like it (pytest, pip).
 */

import { basename } from "node:path";
import { type OptionTable, scanOptions } from "../options.ts";
import { emptyAnalysis, isDynamic, syntheticWord } from "../types.ts";
import { innerCall, type ProgramAnalyzer } from "./program.ts";

const CODE = "runs the code it is given";
const LOADS = "loads the module it names before the program";

const NODE: OptionTable = {
  program: "node",
  normalize: (name) => name.replaceAll("_", "-"),
  values: [
    "e",
    "eval",
    "p",
    "print",
    "r",
    "require",
    "import",
    "loader",
    "experimental-loader",
    "C",
    "conditions",
    "input-type",
    "title",
    "env-file",
    "env-file-if-exists",
    "test-name-pattern",
    "test-skip-pattern",
    "test-reporter",
    "test-reporter-destination",
    "disable-warning",
    "watch-path",
    "redirect-warnings",
    "openssl-config",
    "icu-data-dir",
    "experimental-config-file",
    "diagnostic-dir",
    "report-dir",
    "report-directory",
    "report-filename",
    "cpu-prof-dir",
    "heap-prof-dir",
    "run",
    "localstorage-file",
    "snapshot-blob",
    "tsconfig",
  ],
  risky: {
    e: CODE,
    eval: CODE,
    p: CODE,
    print: CODE,
    r: LOADS,
    require: LOADS,
    import: LOADS,
    loader: LOADS,
    "experimental-loader": LOADS,
    "env-file": "reads environment variables (`NODE_OPTIONS` among them) from a file",
    "env-file-if-exists": "reads environment variables (`NODE_OPTIONS` among them) from a file",
    run: "runs a package.json script",
    "redirect-warnings": "writes to the file it names",
    "openssl-config": "loads an OpenSSL configuration, which can load any engine library",
    "experimental-config-file": "reads Node.js options from a file",
    "test-reporter": "loads the reporter module it names unless it is built in",
    "test-reporter-destination": "writes the report to the file it names",
  },
  safeValues: { "test-reporter": ["spec", "tap", "dot", "junit", "lcov"] },
  onlyHarmless: {
    names: [
      "v",
      "version",
      "h",
      "help",
      "c",
      "check",
      "no-warnings",
      "no-deprecation",
      "throw-deprecation",
      "trace-deprecation",
      "trace-warnings",
      "trace-uncaught",
      "trace-exit",
      "pending-deprecation",
      "enable-source-maps",
      "disable-warning",
      "unhandled-rejections",
      "max-old-space-size",
      "stack-size",
      "stack-trace-limit",
      "experimental-strip-types",
      "no-experimental-strip-types",
      "no-strip-types",
      "experimental-transform-types",
      "experimental-vm-modules",
      "experimental-detect-module",
      "no-experimental-detect-module",
      "experimental-require-module",
      "no-experimental-require-module",
      "expose-gc",
      "title",
      "jitless",
      "frozen-intrinsics",
      "disallow-code-generation-from-strings",
      "zero-fill-buffers",
      "no-addons",
      "preserve-symlinks",
      "preserve-symlinks-main",
      "C",
      "conditions",
      "input-type",
      "abort-on-uncaught-exception",
      "tsconfig",
      // The test runner and watch mode run the project's own files, like a script does.
      "test",
      "test-name-pattern",
      "test-skip-pattern",
      "test-only",
      "test-concurrency",
      "test-timeout",
      "test-force-exit",
      "test-update-snapshots",
      "experimental-test-coverage",
      "test-reporter",
      "watch",
    ],
    why: "is not one of the few Node.js options known to be harmless (others run code, `--import`, or write files, `--redirect-warnings`)",
  },
  stopAtOperand: true,
};

const PYTHON: OptionTable = {
  program: "python",
  values: ["c", "m", "W", "X", "Q"],
  risky: { c: CODE, i: "reads code from stdin after the script" },
  onlyHarmless: {
    names: [
      "b",
      "B",
      "d",
      "E",
      "h",
      "help",
      "I",
      "O",
      "P",
      "q",
      "R",
      "s",
      "S",
      "u",
      "v",
      "V",
      "version",
      "W",
      "x",
      "m",
    ],
    why: "is not one of the few Python options known to be harmless (`-X` writes caches elsewhere, `-c` runs code)",
  },
  stopAtOperand: true,
  stopAfter: ["c", "m"],
};

const SCRIPTING: Record<string, OptionTable> = {
  perl: {
    program: "perl",
    values: ["e", "E", "M", "m", "I", "C", "d", "x", "i"],
    risky: {
      e: CODE,
      E: CODE,
      M: LOADS,
      m: LOADS,
      d: "loads a debugger module it names",
      i: "rewrites the files it is given in place",
    },
    onlyHarmless: {
      names: ["w", "W", "X", "c", "T", "t", "l", "n", "p", "a", "I", "C", "v", "V", "h", "s"],
      why: "is not one of the few perl options known to be harmless",
    },
    stopAtOperand: true,
  },
  ruby: {
    program: "ruby",
    values: ["e", "r", "I", "C", "E", "x"],
    risky: {
      e: CODE,
      r: LOADS,
      C: "runs in another folder",
      x: "runs code embedded in another file",
      S: "looks the script up in PATH",
    },
    onlyHarmless: {
      names: ["w", "W", "v", "c", "d", "l", "n", "p", "a", "I", "h", "version", "help"],
      why: "is not one of the few ruby options known to be harmless",
    },
    stopAtOperand: true,
  },
  php: {
    program: "php",
    values: ["r", "d", "c", "f", "S", "t", "z", "B", "R", "F", "E"],
    risky: {
      r: CODE,
      B: CODE,
      R: CODE,
      E: CODE,
      F: CODE,
      a: "reads code from stdin",
      d: "sets PHP settings (`auto_prepend_file` runs any file)",
      c: "reads PHP settings from a file it names",
      z: "loads the extension library it names",
      S: "starts a web server that runs any file",
    },
    onlyHarmless: {
      names: ["v", "h", "i", "l", "n", "m", "s", "q", "H", "w", "f"],
      why: "is not one of the few php options known to be harmless",
    },
    stopAtOperand: true,
  },
};

/** Scripts node runs that are programs this policy knows (`node node_modules/eslint/bin/eslint.js`). */
const KNOWN_SCRIPTS: Record<string, string> = {
  eslint: "eslint",
  prettier: "prettier",
  vitest: "vitest",
  jest: "jest",
  mocha: "mocha",
  _mocha: "mocha",
  tsc: "tsc",
  stylelint: "stylelint",
  "npm-cli": "npm",
  "npx-cli": "npx",
  pnpm: "pnpm",
  yarn: "yarn",
};

/** node, tsx, ts-node: node's options, then the script and its arguments. */
export const analyzeNode: ProgramAnalyzer = ({ call, name }) => {
  const analysis = emptyAnalysis();
  const scan = scanOptions(call.words, 1, { ...NODE, program: name });
  analysis.risks.push(...scan.risks);
  const script = call.words[scan.next];
  if (script && !isDynamic(script) && script.text === "-") {
    analysis.risks.push({ word: script, chars: 1, why: "makes it read the program from stdin" });
  }
  const program =
    script && !isDynamic(script) && KNOWN_SCRIPTS[basename(script.text).replace(/\.[cm]?js$/, "")];
  if (program) {
    analysis.inner.push({
      call: innerCall(call, [syntheticWord(program), ...call.words.slice(scan.next + 1)]),
      mode: "within",
    });
  }
  return analysis;
};

export const analyzePython: ProgramAnalyzer = ({ call, name }) => {
  const analysis = emptyAnalysis();
  const words = call.words;
  const scan = scanOptions(words, 1, { ...PYTHON, program: name });
  analysis.risks.push(...scan.risks);
  const module = scan.options.find((option) => option.name === "m")?.value;
  if (module && !isDynamic(module)) {
    analysis.inner.push({ call: innerCall(call, [module, ...words.slice(scan.next)]), mode: "within" });
  }
  const script = words[scan.next];
  if (!module && script && !isDynamic(script) && script.text === "-") {
    analysis.risks.push({ word: script, chars: 1, why: "makes it read the program from stdin" });
  }
  return analysis;
};

/** perl, ruby, php. */
export const analyzeScripting: ProgramAnalyzer = ({ call, name }) => {
  const analysis = emptyAnalysis();
  const table = SCRIPTING[name];
  if (table) analysis.risks.push(...scanOptions(call.words, 1, table).risks);
  return analysis;
};
