import { readFileSync } from "node:fs";
import path from "node:path";
import type { Call, JudgeEnv } from "./types.ts";

/**
 * What program analyzers may ask while one command is judged: the folder it starts in (unknown
 * once it changes folder), the scripts of that folder's package.json (read once, on first use)
 * and a parser for a script's code.
 */
export function createJudgeEnv(
  workspace: string,
  cwdKnown: boolean,
  parse: (code: string) => Call[],
): JudgeEnv {
  let scripts: Record<string, string> | undefined | null = null;
  return {
    cwd: cwdKnown ? workspace : undefined,
    packageScripts: () => {
      if (scripts === null) scripts = cwdKnown ? readScripts(workspace) : undefined;
      return scripts;
    },
    parseCalls: (code) => {
      try {
        return parse(code);
      } catch {
        return undefined;
      }
    },
  };
}

function readScripts(workspace: string): Record<string, string> | undefined {
  try {
    const json: unknown = JSON.parse(readFileSync(path.join(workspace, "package.json"), "utf8"));
    const scripts = (json as { scripts?: unknown } | null)?.scripts;
    if (scripts === null || typeof scripts !== "object") return undefined;
    return Object.fromEntries(
      Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    return undefined;
  }
}
