/**
 * find and fd run commands: find's `-exec`, `-execdir`, `-ok`, `-okdir` (the command must be
 * allowed too), `-delete` removes what it finds, `-fprint`, `-fprint0`, `-fprintf`, `-fls` write
 * files (judged as written paths). The `{}` find fills in is a path below a starting point: a
 * program that writes it writes there (`find /tmp -exec eslint --fix {} +` writes /tmp). fd's `-x` / `-X` run a command with the paths it finds, which
 * are bare names (a file named `-c` becomes an option), so they are words no pattern can name.
 */
import { emptyAnalysis, isDynamic, syntheticWord, type Word } from "../types.ts";
import { innerCall, type ProgramAnalyzer } from "./program.ts";

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const FIND_WRITES = new Set(["-fprint", "-fprint0", "-fls", "-fprintf"]);

export const analyzeFind: ProgramAnalyzer = ({ call }) => {
  const analysis = emptyAnalysis();
  const words = call.words;
  const starts = startingPoints(words);
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (isDynamic(word)) {
      // Unquoted, `$X` splits into words and a glob can match a file named `-delete`.
      analysis.risks.push({
        word,
        chars: word.text.length,
        why: "is only known when it runs and could become `-exec` or `-delete`",
      });
      continue;
    }
    if (word.text === "-delete") analysis.risks.push({ word, chars: 7, why: "deletes every file it finds" });
    if (FIND_WRITES.has(word.text) && words[i + 1])
      analysis.writes.push({ word: words[++i]!, by: `\`find ${word.text}\`` });
    if (!FIND_EXEC.has(word.text)) continue;
    const segment: Word[] = [];
    for (i++; i < words.length && words[i]!.text !== ";" && words[i]!.text !== "+"; i++) {
      const part = words[i]!;
      segment.push(
        part.text.includes("{}")
          ? {
              ...part,
              paths: starts.map((start) => part.text.replaceAll("{}", start.text)),
              hidden: starts.some(isDynamic),
            }
          : part,
      );
    }
    if (segment.length > 0) analysis.inner.push({ call: innerCall(call, segment), mode: "also" });
  }
  return analysis;
};

/** find's starting points: the words before its expression (after -H, -L, -P, -D, -O), `.` when none. */
function startingPoints(words: readonly Word[]): Word[] {
  const starts: Word[] = [];
  for (let i = 1; i < words.length; i++) {
    const text = words[i]!.text;
    if (["-H", "-L", "-P"].includes(text) || /^-O\d*$/.test(text)) continue;
    if (text === "-D") {
      i++;
      continue;
    }
    if (!isDynamic(words[i]!) && (text.startsWith("-") || text === "(" || text === "!" || text === ","))
      break;
    starts.push(words[i]!);
  }
  return starts.length > 0 ? starts : [syntheticWord(".")];
}

const FD_PLACEHOLDER = /^\{(\/|\/\/|\.|\/\.)?\}$/;

/** fd's `-x cmd` / `-X cmd` run cmd with the paths it finds, which are bare names (`-c` included). */
export const analyzeFd: ProgramAnalyzer = ({ call }) => {
  const analysis = emptyAnalysis();
  const words = call.words;
  for (let i = 1; i < words.length; i++) {
    const text = words[i]!.text;
    if (!["-x", "--exec", "-X", "--exec-batch"].includes(text)) continue;
    const segment: Word[] = [];
    let placeholder = false;
    for (i++; i < words.length && words[i]!.text !== ";"; i++) {
      const word = words[i]!;
      placeholder ||= FD_PLACEHOLDER.test(word.text);
      segment.push(FD_PLACEHOLDER.test(word.text) ? syntheticWord(word.text, { hidden: true }) : word);
    }
    if (!placeholder) segment.push(syntheticWord("{}", { hidden: true }));
    if (segment.length > 1) analysis.inner.push({ call: innerCall(call, segment), mode: "also" });
  }
  return analysis;
};
