/**
 * Programs whose operands are paths they write: tee, cp, mv, ln, install (the destination, or the
 * `-t` folder), rm, rmdir, mkdir, touch, truncate, shred, unlink, chmod, chown, chgrp (every path;
 * `mv` changes its sources too), dd (`of=`). Those paths are judged like redirection targets:
 * inside the workspace and not protected; a recursive removal or move must not hold a protected
 * path either.
 */
import { type OptionTable, scanOptions } from "../options.ts";
import { emptyAnalysis, isDynamic } from "../types.ts";
import type { ProgramAnalyzer } from "./program.ts";

interface Writer {
  values?: readonly string[];
  /** Which operands it writes: all, the last (a destination), or all but the first (a mode, an owner). */
  writes: "all" | "last" | "after-first";
}

const TARGET_DIR = ["t", "target-directory", "S", "suffix"];

const WRITERS: Record<string, Writer> = {
  tee: { writes: "all" },
  cp: { values: TARGET_DIR, writes: "last" },
  mv: { values: TARGET_DIR, writes: "all" },
  ln: { values: TARGET_DIR, writes: "last" },
  install: { values: [...TARGET_DIR, "m", "mode", "o", "owner", "g", "group"], writes: "last" },
  rm: { writes: "all" },
  rmdir: { writes: "all" },
  unlink: { writes: "all" },
  mkdir: { values: ["m", "mode"], writes: "all" },
  touch: { values: ["d", "date", "t", "r", "reference"], writes: "all" },
  truncate: { values: ["s", "size", "r", "reference"], writes: "all" },
  shred: { values: ["n", "iterations", "s", "size", "random-source"], writes: "all" },
  chmod: { values: ["reference"], writes: "after-first" },
  chown: { values: ["reference", "from"], writes: "after-first" },
  chgrp: { values: ["reference"], writes: "after-first" },
};

export const WRITER_PROGRAMS = [...Object.keys(WRITERS), "dd"];

export const analyzeWriter: ProgramAnalyzer = ({ call, name }) => {
  const analysis = emptyAnalysis();
  const by = `\`${name}\``;
  if (name === "dd") {
    for (const word of call.words.slice(1)) {
      if (isDynamic(word)) analysis.writes.push({ word, by });
      else if (word.text.startsWith("of="))
        analysis.writes.push({ word: { ...word, text: word.text.slice(3) }, by });
    }
    return analysis;
  }
  const writer = WRITERS[name];
  if (!writer) return analysis;
  const table: OptionTable = { program: name, values: writer.values ?? [], abbreviations: true };
  const scan = scanOptions(call.words, 1, table);
  const recursive =
    name === "mv" || scan.options.some((option) => ["r", "R", "recursive"].includes(option.name));
  const targetDir = scan.options.find((option) => option.name === "t" || option.name === "target-directory");
  // A word only known at run time is among the operands: it could be any path, and is judged as one.
  const operands = scan.operands;
  if (targetDir?.value) analysis.writes.push({ word: targetDir.value, by, recursive });
  const written = targetDir
    ? writer.writes === "all"
      ? operands
      : []
    : writer.writes === "all"
      ? operands
      : writer.writes === "after-first"
        ? operands.slice(1)
        : operands.slice(-1);
  for (const word of written) analysis.writes.push({ word, by, recursive });
  return analysis;
};
