/**
 * git: global options that move or reconfigure it (`-C`, `-c`, `--git-dir`, `--work-tree`,
 * `--config-env`, `--exec-path`, `--bare`…), subcommands git does not know (an alias or a
 * `git-<name>` program runs instead), subcommands that run programs or write outside the work tree
 * (`difftool`, `config`, `clone`, `worktree`, `submodule`, `filter-branch`…), and the options of
 * the others that do (`--output`, `--ext-diff`, `grep -O`, `rebase --exec`, `--upload-pack`…).
 * Long options may be abbreviated (git's parse-options), so a prefix of a risky one counts as it.
 * For deny patterns the global options are dropped: `git -C . push` is judged as `git push`.
 */

import { type OptionTable, scanOptions } from "../options.ts";
import { emptyAnalysis } from "../types.ts";
import type { ProgramAnalyzer } from "./program.ts";

const GLOBAL: OptionTable = {
  program: "git",
  values: ["C", "c", "git-dir", "work-tree", "namespace", "super-prefix", "config-env", "attr-source"],
  risky: {
    C: "runs git in another folder, whose repository and configuration the policy does not know",
    c: "sets any git configuration (an alias, a pager or `core.fsmonitor` runs any command)",
    "config-env": "sets any git configuration (an alias, a pager or `core.fsmonitor` runs any command)",
    "git-dir": "points git at another repository, whose configuration can run any command",
    "work-tree": "makes git read and write another folder",
    "exec-path": "makes git run its commands from another folder",
    "super-prefix": "is internal to git and changes the paths it reports and writes",
    bare: "makes git treat the current folder as a repository, whose configuration the model can write",
  },
  abbreviations: true,
  stopAtOperand: true,
};

/** Subcommands this policy knows git to have (git 2.39 to 2.50). Anything else is an alias or a program. */
const KNOWN = new Set(
  `add am annotate apply archive backfill bisect blame branch bugreport bundle cat-file check-attr
  check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean clone
  column commit commit-graph commit-tree config count-objects credential describe diagnose diff
  diff-files diff-index diff-pairs diff-tree difftool fast-export fast-import fetch fetch-pack
  filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep
  hash-object help hook index-pack init init-db interpret-trailers last-modified log ls-files
  ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index merge-tree
  mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs
  patch-id prune prune-packed pull push range-diff read-tree rebase reflog refs remote repack replace
  replay repo rerere reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch
  show-index show-ref sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag
  unpack-file unpack-objects update-index update-ref update-server-info var verify-commit verify-pack
  verify-tag version whatchanged worktree write-tree`.split(/\s+/),
);

const RUNS_OR_WRITES: Record<string, string> = {
  difftool: "runs a diff tool (`-x`/`--extcmd` or a configured one), which can be any command",
  mergetool: "runs a merge tool, which can be any command",
  config: "changes git configuration (an alias, a pager or `core.fsmonitor` runs any command)",
  clone: "writes a repository wherever it names, with any configuration (`-c`, `--template`)",
  init: "creates a repository wherever it names, with hooks from any template",
  "init-db": "creates a repository wherever it names, with hooks from any template",
  worktree: "creates work trees wherever it names",
  submodule: "runs commands in submodules (`foreach`) and configured update commands",
  "filter-branch": "runs the shell filters it is given",
  bisect: "runs the command it is given (`bisect run`)",
  "for-each-repo": "runs git in every repository a configuration key lists",
  maintenance: "schedules git in the system's scheduler (cron, systemd), outside the run",
  bundle: "writes a bundle file wherever it names",
  hook: "runs the repository's hooks",
  "fast-import": "writes marks files wherever it names",
  credential: "hands stored credentials to whoever asks",
};

const DIFF: Record<string, string> = {
  output: "writes the output to a file, wherever it names",
  "ext-diff": "runs an external diff program (`diff.external`, `GIT_EXTERNAL_DIFF`)",
};
const STRATEGY: Record<string, string> = {
  s: "runs a `git-merge-<name>` program for the strategy it names",
  strategy: "runs a `git-merge-<name>` program for the strategy it names",
};
const UPLOAD: Record<string, string> = { "upload-pack": "runs the program it names on the remote side" };

const TEMPLATE = "copies hooks and configuration from the template folder it names";
const WRITES_CONFIG = {
  global: "writes the user's git configuration (`~/.gitconfig`), read by every later git outside the run",
  system: "writes the system's git configuration, read by every later git outside the run",
  file: "writes the configuration file it names, wherever it is",
  f: "writes the configuration file it names, wherever it is",
};

/**
 * Options of a subcommand that is itself risky: a pattern naming the subcommand (`git difftool*`)
 * still names none of these, so `git difftool -x cmd` needs `-x` spelled out too.
 */
const SUBCOMMAND_RISKS: Record<string, Record<string, string>> = {
  difftool: {
    x: "runs the command it is given as the diff tool",
    extcmd: "runs the command it is given as the diff tool",
  },
  config: WRITES_CONFIG,
  clone: {
    c: "sets any configuration of the new repository (`core.fsmonitor`, a pager or an alias runs any command)",
    config:
      "sets any configuration of the new repository (`core.fsmonitor`, a pager or an alias runs any command)",
    template: TEMPLATE,
    u: "runs the program it names on the remote side",
    "upload-pack": "runs the program it names on the remote side",
    "separate-git-dir": "writes the repository wherever it names",
  },
  init: { template: TEMPLATE, "separate-git-dir": "writes the repository wherever it names" },
  diff: DIFF,
  "diff-files": DIFF,
  "diff-index": DIFF,
  "diff-tree": DIFF,
  log: DIFF,
  show: DIFF,
  whatchanged: DIFF,
  "range-diff": DIFF,
  stash: DIFF,
  "format-patch": {
    ...DIFF,
    o: "writes the patches into any folder",
    "output-directory": "writes the patches into any folder",
  },
  grep: {
    O: "opens the matching files with the pager command it names",
    "open-files-in-pager": "opens the matching files with the pager command it names",
  },
  apply: {
    "unsafe-paths": "writes outside the work tree",
    "build-fake-ancestor": "writes a file wherever it names",
  },
  "checkout-index": { prefix: "writes the files wherever it names" },
  merge: STRATEGY,
  pull: { ...STRATEGY, ...UPLOAD },
  "cherry-pick": STRATEGY,
  revert: STRATEGY,
  rebase: {
    ...STRATEGY,
    x: "runs the shell command it is given",
    exec: "runs the shell command it is given",
  },
  fetch: UPLOAD,
  "ls-remote": UPLOAD,
  "fetch-pack": UPLOAD,
  push: {
    "receive-pack": "runs the program it names on the remote side",
    exec: "runs the program it names on the remote side",
  },
  "send-pack": { "receive-pack": "runs the program it names on the remote side" },
  archive: {
    exec: "runs the program it names on the remote side",
    o: "writes the archive wherever it names",
    output: "writes the archive wherever it names",
  },
  "fast-export": { "export-marks": "writes a marks file wherever it names" },
};

export const analyzeGit: ProgramAnalyzer = ({ call }) => {
  const analysis = emptyAnalysis();
  const words = call.words;
  const global = scanOptions(words, 1, GLOBAL);
  analysis.risks.push(...global.risks);
  const subcommand = words[global.next];
  analysis.normalized = [words[0]!, ...words.slice(global.next)];
  if (subcommand === undefined || global.risks.some((risk) => risk.word === subcommand)) return analysis;
  const name = subcommand.text;
  const whole = { word: subcommand, chars: name.length };
  if (!KNOWN.has(name)) {
    analysis.risks.push({
      ...whole,
      why: `is not a git command this policy knows: git runs an alias (which can run any command) or a \`git-${name}\` program for it`,
    });
    return analysis;
  }
  const runs = RUNS_OR_WRITES[name];
  if (runs !== undefined) analysis.risks.push({ ...whole, why: runs });
  const risky = SUBCOMMAND_RISKS[name];
  if (risky !== undefined) {
    const scan = scanOptions(words, global.next + 1, {
      program: `git ${name}`,
      risky,
      abbreviations: true,
      endOfOptions: ["--end-of-options"],
    });
    // A word only known at run time (`$X`, a glob such as `*` that matches a file named
    // `--output=x`) could be one of these options, so it counts as one.
    analysis.risks.push(...scan.risks);
  }
  return analysis;
};
