/**
 * Common Unix tools that run commands or write files through their options: rg (`--pre`,
 * `--hostname-bin`), sort (`--compress-program`, `-o`, `-T`), tar (`--to-command`,
 * `--use-compress-program`, `--checkpoint-action`, `-C`), make (`-f`, `-C`, `--eval`, variable
 * overrides), pytest (`-p`, `-c`, `-o`), zip (`-TT`, `--unzip-command`); curl, wget and rsync are in transfer.ts. find and fd are in find.ts, sed and awk in sed-awk.ts.
 */
import { type OptionTable, scanOptions } from "../options.ts";
import { emptyAnalysis, isDynamic } from "../types.ts";
import type { ProgramAnalyzer } from "./program.ts";
import { TRANSFER_TOOLS } from "./transfer.ts";

export interface UnixTool {
  table: OptionTable;
  /** Options whose value is a path the tool writes. */
  writes?: readonly string[];
}

const TOOLS: Record<string, UnixTool> = {
  ...TRANSFER_TOOLS,
  rg: {
    table: {
      program: "rg",
      values: [
        "pre",
        "hostname-bin",
        "e",
        "regexp",
        "f",
        "file",
        "g",
        "glob",
        "t",
        "type",
        "T",
        "type-not",
        "m",
        "max-count",
      ],
      risky: {
        pre: "runs the command it names on every file it searches",
        "hostname-bin": "runs the program it names",
      },
    },
  },
  sort: {
    table: {
      program: "sort",
      abbreviations: true,
      values: [
        "o",
        "output",
        "T",
        "temporary-directory",
        "compress-program",
        "k",
        "key",
        "t",
        "field-separator",
        "S",
        "buffer-size",
        "files0-from",
        "parallel",
        "batch-size",
        "random-source",
      ],
      risky: { "compress-program": "runs the program it names" },
    },
    writes: ["o", "output", "T", "temporary-directory"],
  },
  tar: {
    table: {
      program: "tar",
      abbreviations: true,
      values: [
        "f",
        "file",
        "C",
        "directory",
        "I",
        "use-compress-program",
        "to-command",
        "checkpoint-action",
        "F",
        "info-script",
        "new-volume-script",
        "rsh-command",
        "rmt-command",
        "T",
        "files-from",
        "X",
        "exclude-from",
        "b",
        "blocking-factor",
      ],
      risky: {
        "to-command": "runs the command it names for every file",
        I: "runs the compression program it names",
        "use-compress-program": "runs the compression program it names",
        "checkpoint-action": "runs the command it is given (`exec=`)",
        F: "runs the script it names",
        "info-script": "runs the script it names",
        "new-volume-script": "runs the script it names",
        "rsh-command": "runs the program it names",
        "rmt-command": "runs the program it names",
        C: "reads and writes in the folder it names, wherever it is",
        directory: "reads and writes in the folder it names, wherever it is",
        P: "writes to absolute paths in the archive",
        "absolute-names": "writes to absolute paths in the archive",
      },
    },
    writes: ["f", "file"],
  },
  zip: {
    table: {
      program: "zip",
      values: ["TT", "unzip-command", "b", "temp-path", "O", "output-file", "n", "suffixes", "t", "tt"],
      risky: {
        // `-TT cmd` is one option to zip, read here as `-T` twice: either letter counts.
        T: "tests the archive with a command (`-TT cmd`, `--unzip-command`), which can be any command",
        TT: "tests the archive with the command it names, which can be any command",
        "unzip-command": "tests the archive with the command it names, which can be any command",
      },
    },
  },
  make: {
    table: {
      program: "make",
      abbreviations: true,
      values: [
        "f",
        "file",
        "makefile",
        "C",
        "directory",
        "I",
        "include-dir",
        "eval",
        "o",
        "old-file",
        "W",
        "what-if",
        "j",
        "jobs",
        "l",
        "load-average",
      ],
      risky: {
        f: "reads the makefile it names, whose recipes are commands",
        file: "reads the makefile it names, whose recipes are commands",
        makefile: "reads the makefile it names, whose recipes are commands",
        C: "runs in the folder it names, with that folder's makefile",
        directory: "runs in the folder it names, with that folder's makefile",
        I: "includes makefiles from the folder it names",
        "include-dir": "includes makefiles from the folder it names",
        eval: "runs the makefile code it is given",
        e: "lets the environment override the makefile's variables",
        "environment-overrides": "lets the environment override the makefile's variables",
      },
    },
  },
  pytest: {
    table: {
      program: "pytest",
      values: [
        "p",
        "c",
        "o",
        "override-ini",
        "rootdir",
        "confcutdir",
        "basetemp",
        "junitxml",
        "junit-xml",
        "log-file",
        "k",
        "m",
        "maxfail",
        "tb",
        "ignore",
        "deselect",
        "import-mode",
        "cov",
        "cov-report",
      ],
      risky: {
        p: "loads the plugin module it names",
        c: "reads configuration from the file it names (its `addopts` are more options)",
        o: "sets any ini option (`addopts` loads plugins)",
        "override-ini": "sets any ini option (`addopts` loads plugins)",
        rootdir: "reads configuration and `conftest.py` from another folder",
      },
    },
    writes: ["basetemp", "junitxml", "junit-xml", "log-file"],
  },
};

export const UNIX_TOOLS = Object.keys(TOOLS);

export const analyzeUnixTool: ProgramAnalyzer = ({ call, name }) => {
  const analysis = emptyAnalysis();
  const tool = TOOLS[name];
  if (!tool) return analysis;
  const words = [...call.words];
  // tar's old style: `tar czf out.tgz src` is `tar -czf out.tgz src`.
  const bundle = words[1];
  const oldStyle =
    name === "tar" && bundle !== undefined && !isDynamic(bundle) && /^[A-Za-z]+$/.test(bundle.text);
  if (oldStyle) words[1] = { ...bundle, text: `-${bundle.text}` };
  const scan = scanOptions(words, 1, tool.table);
  for (const risk of scan.risks) {
    analysis.risks.push(
      oldStyle && risk.word === words[1] ? { ...risk, word: bundle, chars: risk.chars - 1 } : risk,
    );
  }
  const creates =
    name !== "tar" ||
    scan.options.some((option) => /^(c|r|u|A|create|append|update|catenate|concatenate)$/.test(option.name));
  for (const option of scan.options) {
    if (tool.writes?.includes(option.name) && option.value && creates) {
      analysis.writes.push({ word: option.value, by: `\`${name} ${option.word.text}\`` });
    }
  }
  // make: `NAME=value` operands override any variable of the makefile (`SHELL`, a recipe's command).
  if (name === "make") {
    for (const operand of scan.operands) {
      if (!isDynamic(operand) && /^[A-Za-z_][A-Za-z0-9_]*[:+?!]?=/.test(operand.text)) {
        analysis.risks.push({
          word: operand,
          chars: operand.text.indexOf("=") + 1,
          why: "overrides a make variable, which can be a recipe's command or `SHELL`",
        });
      }
    }
  }
  // rsync writes its last operand (the destination).
  if (name === "rsync" && scan.operands.length > 1)
    analysis.writes.push({ word: scan.operands.at(-1)!, by: "`rsync`" });
  return analysis;
};
