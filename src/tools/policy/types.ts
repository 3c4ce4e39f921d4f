/** The shapes the command policy's parts pass between them (see judge.ts for the rules). */

/** Allow and deny lists of command patterns. `allow` present (even empty) means "only these". */
export interface CommandPolicy {
  allow?: string[];
  deny?: string[];
}

/** Where the judged command runs, for the paths it writes (redirections, `tee`, `eslint --fix`). */
export interface PolicyContext {
  /** The folder the command starts in: the workspace root. Default: process.cwd(). */
  workspace?: string;
  /**
   * Globs (relative to the workspace, picomatch, dotfiles included) no command may write through a
   * redirection or a writing program's operands: the run's protected paths. Default: none.
   */
  protectedPaths?: string[];
}

export type CommandVerdict = { allowed: true } | { allowed: false; reason: string };

/** One shell word as the policy sees it. */
export interface Word {
  /** Quotes removed when `literal`; the source text otherwise. */
  text: string;
  /** No parameter, command or arithmetic expansion in it (quotes are fine). */
  literal: boolean;
  /** Unquoted glob characters: pathname expansion may turn it into other words. */
  glob: boolean;
  /** The first character is an unquoted glob character, so an expansion may start with `-`. */
  globAtStart: boolean;
  /** Unquoted brace expansion (`{a,b}`, `{1..3}`): it becomes several words. */
  brace: boolean;
  /** Unquoted leading `~`: it becomes a home folder. */
  tilde: boolean;
  /**
   * A word the command receives at run time that is not in its text (what `xargs` reads from
   * stdin, a `{}` it fills in): no pattern can name it.
   */
  hidden?: boolean;
  /** The paths it stands for when it runs, for a path it writes (the `{}` of `find -exec`). */
  paths?: string[];
}

/** A simple command: its leading `NAME=value` assignments and its words. */
export interface Call {
  assigns: Word[];
  words: Word[];
}

/**
 * A word an allow pattern must name literally for the command to be allowed: its first `chars`
 * characters must come from the pattern's literal text, not from a `*` or `?`.
 */
export interface Risk {
  word: Word;
  chars: number;
  /** Why, for the model: "`--node-options` sets the Node.js options npm runs scripts with". */
  why: string;
}

/** A path a command writes, judged like a redirection target. */
export interface WriteTarget {
  word: Word;
  /** Who writes it, for the reason: "`tee`", "`eslint --fix`". */
  by: string;
  /** It changes everything below it too (`rm -r`, `mv`): no protected path may lie there. */
  recursive?: boolean;
}

/**
 * How a command another one runs counts for the allow list:
 * - `instead`: a wrapper (`timeout 5 cmd`, `eval`, `sh -c`): allowed when the inner command is,
 *   provided the wrapper adds no risk of its own, or when the whole text is;
 * - `also`: both must be allowed (`find … -exec cmd`);
 * - `within`: only the whole text counts (`npx eslint`, `sudo cmd`); the inner command's risks and
 *   deny patterns still apply;
 * - `forwarded`: project code (a package script) that receives some of the command's words: only
 *   the risks and writes of those words (`only`) count.
 */
export type InnerMode = "instead" | "also" | "within" | "forwarded";

/** A command another one runs. */
export interface InnerCall {
  call: Call;
  mode: InnerMode;
  /** With `forwarded`: the words of the outer command it receives. */
  only?: Set<Word>;
}

/** What a command does, beyond its text. */
export interface Analysis {
  risks: Risk[];
  writes: WriteTarget[];
  inner: InnerCall[];
  /** Shell code it runs (`eval`, `sh -c`, `trap`), with the assignments it inherits. */
  scripts: { code: Word; assigns: Word[]; mode: "instead" | "within" }[];
  /** Set when it cannot be judged at all. */
  refuse?: string;
  /** Its words with global options dropped (`git -C . push` → `git push`), for deny patterns. */
  normalized?: Word[];
}

export function emptyAnalysis(): Analysis {
  return { risks: [], writes: [], inner: [], scripts: [] };
}

/** What program analyzers may ask about the place the command runs. */
export interface JudgeEnv {
  /** The folder relative paths start from; undefined once the script changed directory. */
  cwd: string | undefined;
  /** Scripts of `<cwd>/package.json`, read once per judged command; undefined when unreadable. */
  packageScripts(): Record<string, string> | undefined;
  /** Parses shell code into its simple commands, for scripts whose arguments we follow. */
  parseCalls(code: string): Call[] | undefined;
}

/** A word made by the policy itself (a stand-in, a split value). */
export function syntheticWord(text: string, extra: Partial<Word> = {}): Word {
  return { text, literal: true, glob: false, globAtStart: false, brace: false, tilde: false, ...extra };
}

/** Whether the word's value is unknown until it runs: it could be anything, an option included. */
export function isDynamic(word: Word): boolean {
  return !word.literal || word.globAtStart || word.brace || word.hidden === true;
}

/** A literal word that reads as an option (`-x`, `--long`); `-` alone is an operand (stdin). */
export function isOptionWord(word: Word): boolean {
  return !isDynamic(word) && word.text.length > 1 && word.text.startsWith("-");
}
