/**
 * sed and awk programs are code. A sed script is read command by command: `e` and the `s///e`
 * flag run commands, `w`, `W` and the `s///w` flag write files anywhere; any of them, a script
 * read from a file (`-f`), or one this reader cannot follow is risky. `-i` rewrites the files it
 * is given, judged as written paths. An awk program runs commands (`system()`, `| getline`,
 * `print | "cmd"`) and writes files (`print > f`); one that holds any of `system`, `getline`, `|`,
 * `>` or `@` (gawk's `@load`), or is read from a file, or loads an extension (`-l`), is risky.
 */
import { type OptionTable, scanOptions } from "../options.ts";
import { emptyAnalysis, isDynamic, type Word } from "../types.ts";
import type { ProgramAnalyzer } from "./program.ts";

const SED: OptionTable = {
  program: "sed",
  values: ["e", "expression", "f", "file", "l", "line-length"],
  risky: { f: "reads a script from the file it names", file: "reads a script from the file it names" },
  abbreviations: true,
};

export const analyzeSed: ProgramAnalyzer = ({ call }) => {
  const analysis = emptyAnalysis();
  const scan = scanOptions(call.words, 1, SED);
  analysis.risks.push(...scan.risks);
  const sandboxed = scan.options.some((option) => option.name === "sandbox");
  const scripts = scan.options
    .filter((option) => option.name === "e" || option.name === "expression")
    .map((option) => option.value);
  let files = scan.operands;
  if (scripts.length === 0 && !scan.options.some((option) => option.name === "f" || option.name === "file")) {
    scripts.push(files[0]);
    files = files.slice(1);
  }
  for (const script of scripts) {
    if (script === undefined || sandboxed) continue;
    const why = isDynamic(script)
      ? "is only known when it runs, and sed scripts can run commands (`e`)"
      : sedScriptRisk(script.text);
    if (why) analysis.risks.push({ word: script, chars: script.text.length, why });
  }
  const inPlace = scan.options.find((option) => option.name === "i" || option.name.startsWith("in-place"));
  if (inPlace) for (const file of files) analysis.writes.push({ word: file, by: "`sed -i`" });
  return analysis;
};

/** Why a sed script is risky, or undefined when it neither runs commands nor writes files. */
export function sedScriptRisk(script: string): string | undefined {
  const runs = "runs a command (sed's `e`)";
  const writes = "writes a file (sed's `w`)";
  let i = 0;
  const at = () => script[i] ?? "";
  const skipSpace = () => {
    while (/[ \t]/.test(at())) i++;
  };
  const toLineEnd = () => {
    while (i < script.length && script[i] !== "\n") i++;
  };
  const delimited = (delimiter: string): boolean => {
    for (; i < script.length; i++) {
      if (script[i] === "\\") i++;
      else if (script[i] === delimiter) {
        i++;
        return true;
      } else if (script[i] === "\n" && delimiter !== "\n") return false;
    }
    return false;
  };
  const address = (): boolean => {
    if (at() === "/") {
      i++;
      return delimited("/");
    }
    if (at() === "\\") {
      const delimiter = script[i + 1] ?? "";
      i += 2;
      return delimited(delimiter);
    }
    while (/[0-9$~+]/.test(at())) i++;
    return true;
  };
  while (i < script.length) {
    while (/[\s;]/.test(at())) i++;
    if (i >= script.length) break;
    if (!address()) return "could not be read (sed scripts can run commands)";
    skipSpace();
    if (at() === ",") {
      i++;
      skipSpace();
      if (!address()) return "could not be read (sed scripts can run commands)";
    }
    skipSpace();
    while (at() === "!") i++;
    skipSpace();
    const command = at();
    i++;
    if (command === "e") return runs;
    if (command === "w" || command === "W") return writes;
    if (command === "s" || command === "y") {
      const delimiter = at();
      i++;
      if (!delimiter || !delimited(delimiter) || !delimited(delimiter))
        return "could not be read (sed scripts can run commands)";
      if (command === "y") continue;
      while (/[gpiImMe0-9w]/.test(at())) {
        if (at() === "e") return runs;
        if (at() === "w") return writes;
        i++;
      }
      continue;
    }
    if ("aicrR:btTv#".includes(command)) {
      // Text, a file to read, a label or a comment: up to the end of the line.
      toLineEnd();
      continue;
    }
    if ("{}=dDgGhHlLnNpPqQxzF".includes(command)) {
      while (/[0-9]/.test(at())) i++;
      continue;
    }
    return "could not be read (sed scripts can run commands)";
  }
  return undefined;
}

const AWK: OptionTable = {
  program: "awk",
  values: ["f", "file", "v", "assign", "F", "field-separator", "i", "include", "l", "load", "E", "exec"],
  risky: {
    f: "reads the awk program from the file it names (awk programs run commands)",
    file: "reads the awk program from the file it names (awk programs run commands)",
    i: "includes awk code from the file it names",
    include: "includes awk code from the file it names",
    l: "loads the extension library it names",
    load: "loads the extension library it names",
    E: "reads the awk program from the file it names (awk programs run commands)",
    exec: "reads the awk program from the file it names (awk programs run commands)",
  },
};

export const analyzeAwk: ProgramAnalyzer = ({ call }) => {
  const analysis = emptyAnalysis();
  const scan = scanOptions(call.words, 1, AWK);
  analysis.risks.push(...scan.risks);
  if (scan.options.some((option) => ["f", "file", "E", "exec"].includes(option.name))) return analysis;
  const program: Word | undefined = scan.operands[0];
  if (program && (isDynamic(program) || /system|getline|[|>@]/.test(program.text))) {
    analysis.risks.push({
      word: program,
      chars: program.text.length,
      why: "is awk code that may run commands (`system()`, `|`) or write files (`print > f`)",
    });
  }
  return analysis;
};
