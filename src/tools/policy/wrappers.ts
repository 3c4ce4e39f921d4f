/**
 * Commands that run another command or shell code: wrappers (`env X=1 cmd`, `timeout 5 cmd`,
 * `nice`, `nohup`, `time`, `stdbuf`, `setsid`, `command`, `builtin`, `exec`, `xargs`, `flock`,
 * `strace`…) are judged by the command they run; `sudo` and `doas` too, but they must be allowed
 * themselves; shells (`bash -c 'code'`), `eval`, `trap`, `alias` and `watch` by the code they run.
 * A wrapper's own risky options (`env -C dir`, `time -o file`, `strace -o file`) count as the
 * command's. What `xargs` adds from stdin is a word no pattern can name: after `--` it is an
 * operand; where it could be an option of a program with risky options, it is refused.
 */
import { type OptionTable, scanOptions } from "./options.ts";
import { innerCall, type ProgramAnalyzer } from "./programs/program.ts";
import { type Analysis, type Call, emptyAnalysis, isDynamic, syntheticWord, type Word } from "./types.ts";

export const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "ash", "mksh"]);

interface Wrapper {
  table: OptionTable;
  /** Positional words before the command (timeout's duration, taskset's mask). */
  positionals?: number;
  /** `NAME=value` words before the command set its environment (env). */
  assignments?: boolean;
  /** Options whose value is a path it writes. */
  writes?: readonly string[];
  /** The wrapper must be allowed itself (it changes who runs the command). */
  within?: string;
}

const WRAPPERS: Record<string, Wrapper> = {
  env: {
    table: {
      program: "env",
      values: ["u", "unset", "C", "chdir", "a", "argv0", "S", "split-string"],
      risky: {
        C: "runs the command in another folder",
        chdir: "runs the command in another folder",
      },
    },
    assignments: true,
  },
  command: { table: { program: "command" } },
  builtin: { table: { program: "builtin" } },
  exec: { table: { program: "exec", values: ["a"] } },
  nice: { table: { program: "nice", values: ["n", "adjustment"] } },
  nohup: { table: { program: "nohup" } },
  time: {
    table: { program: "time", values: ["o", "output", "f", "format"], abbreviations: true },
    writes: ["o", "output"],
  },
  timeout: { table: { program: "timeout", values: ["k", "kill-after", "s", "signal"] }, positionals: 1 },
  stdbuf: { table: { program: "stdbuf", values: ["i", "o", "e", "input", "output", "error"] } },
  setsid: { table: { program: "setsid" } },
  unbuffer: { table: { program: "unbuffer" } },
  busybox: { table: { program: "busybox" } },
  ionice: { table: { program: "ionice", values: ["c", "class", "n", "classdata"] } },
  chrt: { table: { program: "chrt" }, positionals: 1 },
  taskset: { table: { program: "taskset" }, positionals: 1 },
  strace: {
    table: {
      program: "strace",
      values: ["o", "output", "e", "p", "s", "u", "E", "a", "P", "X"],
      risky: { u: "runs the command as another user", E: "sets an environment variable for the command" },
    },
    writes: ["o", "output"],
  },
  ltrace: {
    table: {
      program: "ltrace",
      values: ["o", "output", "e", "p", "s", "u", "a", "n"],
      risky: { u: "runs the command as another user" },
    },
    writes: ["o", "output"],
  },
  sudo: {
    table: {
      program: "sudo",
      values: ["u", "g", "C", "D", "h", "p", "r", "t", "U", "T"],
      risky: {
        D: "runs the command in another folder",
        s: "runs the command through a shell",
        shell: "runs the command through a shell",
        i: "runs the command through a login shell",
        login: "runs the command through a login shell",
        E: "keeps the environment",
        "preserve-env": "keeps the environment",
      },
    },
    within: "runs the command as another user (root by default)",
  },
  doas: {
    table: { program: "doas", values: ["u", "C"] },
    within: "runs the command as another user (root by default)",
  },
  flock: {
    table: { program: "flock", values: ["w", "wait", "timeout", "E", "conflict-exit-code", "c", "command"] },
    positionals: 1,
  },
};

export const WRAPPER_NAMES = [...Object.keys(WRAPPERS), "xargs", "eval", "trap", "alias", "watch", ...SHELLS];

/** Analyzes a wrapper, a shell or a code-running builtin; undefined for anything else. */
export const analyzeWrapper: ProgramAnalyzer = (input) => {
  const { name, call } = input;
  if (SHELLS.has(name)) return shell(call, name);
  if (name === "eval") return codeOf(call, call.words.slice(1), "eval");
  if (name === "trap") {
    const operands = call.words.slice(1).filter((word) => !/^-[lp]+$/.test(word.text) && word.text !== "--");
    return operands.length >= 2 && operands[0]!.text !== "-"
      ? codeOf(call, [operands[0]!], "trap")
      : emptyAnalysis();
  }
  if (name === "alias") {
    const analysis = emptyAnalysis();
    for (const word of call.words.slice(1)) {
      const eq = word.text.indexOf("=");
      if (eq > 0)
        analysis.scripts.push({
          code: { ...word, text: word.text.slice(eq + 1) },
          assigns: call.assigns,
          mode: "instead",
        });
    }
    return analysis;
  }
  if (name === "watch") {
    const scan = scanOptions(call.words, 1, {
      program: "watch",
      values: ["n", "interval", "q", "equexit"],
      stopAtOperand: true,
    });
    const rest = call.words.slice(scan.next);
    if (scan.options.some((option) => option.name === "x" || option.name === "exec"))
      return wrapped(call, rest, []);
    return codeOf(call, rest, "watch");
  }
  if (name === "xargs") return xargs(call);
  const wrapper = WRAPPERS[name];
  return wrapper ? unwrap(call, wrapper) : emptyAnalysis();
};

function wrapped(
  call: Call,
  words: Word[],
  assigns: Word[],
  mode: "instead" | "within" = "instead",
): Analysis {
  const analysis = emptyAnalysis();
  if (words.length > 0) analysis.inner.push({ call: innerCall(call, words, assigns), mode });
  return analysis;
}

/** Code joined from `words` (`eval a b` runs `a b`); refused when any is only known at run time. */
function codeOf(call: Call, words: Word[], by: string): Analysis {
  const analysis = emptyAnalysis();
  if (words.length === 0) return analysis;
  if (words.some(isDynamic)) {
    analysis.refuse = `\`${by}\` of code that is only known when it runs cannot be judged`;
    return analysis;
  }
  analysis.scripts.push({
    code: syntheticWord(words.map((word) => word.text).join(" ")),
    assigns: call.assigns,
    mode: "instead",
  });
  return analysis;
}

function unwrap(call: Call, wrapper: Wrapper): Analysis {
  const words = call.words;
  const scan = scanOptions(words, 1, { ...wrapper.table, stopAtOperand: true });
  const analysis = emptyAnalysis();
  if (scan.options.some((option) => option.name === "S" || option.name === "split-string")) {
    analysis.refuse = "`env -S` splits a string into a command that cannot be judged";
    return analysis;
  }
  analysis.risks.push(...scan.risks.filter((risk) => !isDynamic(risk.word)));
  for (const option of scan.options) {
    if (wrapper.writes?.includes(option.name) && option.value)
      analysis.writes.push({ word: option.value, by: `\`${wrapper.table.program} ${option.word.text}\`` });
    if (
      wrapper.table.program === "flock" &&
      (option.name === "c" || option.name === "command") &&
      option.value
    ) {
      analysis.scripts.push({ code: option.value, assigns: call.assigns, mode: "instead" });
    }
  }
  let i = scan.next;
  const assigns: Word[] = [];
  for (let left = wrapper.positionals ?? 0; left > 0 && i < words.length; left--, i++) {
    if (wrapper.table.program === "flock") analysis.writes.push({ word: words[i]!, by: "`flock`" });
  }
  while (wrapper.assignments && i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!.text))
    assigns.push(words[i++]!);
  const inner = words.slice(i);
  if (inner.length > 0 && isDynamic(inner[0]!)) {
    analysis.refuse = `\`${wrapper.table.program}\` runs a command that is only known when it runs`;
    return analysis;
  }
  if (wrapper.within)
    analysis.risks.push({ word: words[0]!, chars: words[0]!.text.length, why: wrapper.within });
  if (inner.length > 0)
    analysis.inner.push({
      call: innerCall(call, inner, assigns),
      mode: wrapper.within ? "within" : "instead",
    });
  return analysis;
}

const XARGS: OptionTable = {
  program: "xargs",
  values: [
    "a",
    "arg-file",
    "d",
    "delimiter",
    "E",
    "eof",
    "I",
    "L",
    "max-lines",
    "n",
    "max-args",
    "P",
    "max-procs",
    "s",
    "max-chars",
    "process-slot-var",
  ],
  abbreviations: true,
  stopAtOperand: true,
};

/** xargs runs its command with words read from stdin (or `-a` file), appended or put for `-I R`. */
function xargs(call: Call): Analysis {
  const scan = scanOptions(call.words, 1, XARGS);
  const replace = scan.options.find((option) => ["I", "i", "replace", "J"].includes(option.name));
  const marker = replace ? (replace.value?.text ?? "{}") : undefined;
  const command = call.words.slice(scan.next);
  if (command.length === 0) return emptyAnalysis();
  const words = marker
    ? command.map((word) => (word.text.includes(marker) ? syntheticWord(word.text, { hidden: true }) : word))
    : [...command, syntheticWord("…", { hidden: true })];
  const analysis = emptyAnalysis();
  analysis.inner.push({ call: { assigns: call.assigns, words }, mode: "instead" });
  return analysis;
}

/** `bash -c 'code'` runs its code; `bash file` runs a file (the pattern's business); `bash` alone reads stdin. */
function shell(call: Call, name: string): Analysis {
  const analysis = emptyAnalysis();
  const words = call.words;
  let hasC = false;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    const text = word.text;
    if (text === "-o" || text === "+o" || text === "-O" || text === "+O") {
      i++;
      continue;
    }
    if (text === "--rcfile" || text === "--init-file") {
      analysis.risks.push({ word, chars: text.length, why: "runs the file it names first" });
      i++;
      continue;
    }
    if (text === "--") continue;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(text)) {
      hasC = true;
      continue;
    }
    if (/^[-+]/.test(text) && !isDynamic(word)) {
      if (/^-[a-zA-Z]*s/.test(text) && !hasC) {
        analysis.refuse = `\`${name} ${text}\` reads commands that cannot be judged (stdin)`;
        return analysis;
      }
      continue;
    }
    if (!hasC) return analysis;
    if (isDynamic(word)) {
      analysis.refuse = `the \`${name} -c\` code is only known when it runs, so it cannot be judged`;
      return analysis;
    }
    analysis.scripts.push({ code: word, assigns: call.assigns, mode: "instead" });
    return analysis;
  }
  analysis.refuse = `\`${words.map((word) => word.text).join(" ")}\` reads commands that cannot be judged (stdin or no code)`;
  return analysis;
}
