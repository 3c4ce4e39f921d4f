import { analyzeWrapper, WRAPPER_NAMES } from "../wrappers.ts";
import { analyzeFd, analyzeFind } from "./find.ts";
import { analyzeGit } from "./git.ts";
import { analyzeNode, analyzePython, analyzeScripting } from "./interpreters.ts";
import { analyzeJsTool, JS_TOOLS } from "./js-tools.ts";
import { analyzeNpx, analyzePackageManager } from "./package-managers.ts";
import type { ProgramAnalyzer } from "./program.ts";
import { analyzeAwk, analyzeSed } from "./sed-awk.ts";
import { analyzeTestRunner, TEST_RUNNERS } from "./test-runners.ts";
import { analyzeUnixTool, UNIX_TOOLS } from "./unix.ts";
import { analyzeWriter, WRITER_PROGRAMS } from "./writers.ts";

/** The programs the policy knows the options of, by basename. */
const ANALYZERS = new Map<string, ProgramAnalyzer>([
  ["git", analyzeGit],
  ["npm", analyzePackageManager],
  ["pnpm", analyzePackageManager],
  ["yarn", analyzePackageManager],
  ["bun", analyzePackageManager],
  ["npx", analyzeNpx],
  ["pnpx", analyzeNpx],
  ["bunx", analyzeNpx],
  ["node", analyzeNode],
  ["nodejs", analyzeNode],
  ["tsx", analyzeNode],
  ["ts-node", analyzeNode],
  ["perl", analyzeScripting],
  ["ruby", analyzeScripting],
  ["php", analyzeScripting],
  ["find", analyzeFind],
  ["fd", analyzeFd],
  ["fdfind", analyzeFd],
  ["sed", analyzeSed],
  ["gsed", analyzeSed],
  ["awk", analyzeAwk],
  ["gawk", analyzeAwk],
  ["mawk", analyzeAwk],
  ["nawk", analyzeAwk],
  ...JS_TOOLS.map((name) => [name, analyzeJsTool] as const),
  ...TEST_RUNNERS.map((name) => [name, analyzeTestRunner] as const),
  ...UNIX_TOOLS.map((name) => [name, analyzeUnixTool] as const),
  ...WRITER_PROGRAMS.map((name) => [name, analyzeWriter] as const),
  ...WRAPPER_NAMES.map((name) => [name, analyzeWrapper] as const),
]);

/** The analyzer for a program's basename; python versions (`python3.12`) count as python. */
export function analyzerFor(name: string): ProgramAnalyzer | undefined {
  if (/^python[0-9.]*$/.test(name)) return analyzePython;
  return ANALYZERS.get(name);
}

export type { ProgramAnalyzer, ProgramInput } from "./program.ts";
