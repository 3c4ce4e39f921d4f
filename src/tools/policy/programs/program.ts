import type { Analysis, Call, JudgeEnv, Word } from "../types.ts";

/** What a program analyzer gets: the call (its first word names the program) and where it runs. */
export interface ProgramInput {
  /** The program's name reduced to its basename (`/usr/bin/git` → `git`). */
  name: string;
  call: Call;
  env: JudgeEnv;
}

/** Reads one program's command line: its risky options, what it writes and what it runs. */
export type ProgramAnalyzer = (input: ProgramInput) => Analysis;

/** A call of `words` that inherits `call`'s assignments. */
export function innerCall(call: Call, words: Word[], assigns: Word[] = []): Call {
  return { assigns: [...call.assigns, ...assigns], words };
}
