/**
 * Allow/deny policy for bash commands, judged per simple command with a real shell parser
 * (syntax.ts). Rules:
 * - a command matching a `deny` pattern is refused, written directly, through a wrapper, or with
 *   its global options dropped (`git -C . push` is judged as `git push` too), its name reduced to
 *   a basename (`/usr/bin/git`) or unquoted (`\git`);
 * - with an `allow` list, every simple command must match an allow pattern (for a wrapper, the
 *   command it runs may instead; `eval` and `sh -c` are judged by the code they run);
 * - a pattern allows a risky word only when it names it literally (globs.ts): options that make an
 *   allowed program run other code or write elsewhere (programs/), `NAME=value` assignments before
 *   a command (an environment variable can make it load code), and words only known at run time
 *   where an option could stand (`$X`, `*` matching a file named `--config=x`);
 * - paths written through redirections or writing programs lie in the workspace and are not
 *   protected; read ones lie in the workspace (targets.ts);
 * - with any policy set, what cannot be judged is refused: a parse error, a command name that is not
 *   a literal word, code only known at run time (`eval "$X"`, `sh -c "$X"`), a shell reading stdin,
 *   `env -S`, and arithmetic constructs (arithmetic.ts).
 * A deny list alone is best effort (an interpreter such as `python -c` can run anything); an allow
 * list is the guard, and the sandbox the boundary.
 */
import path, { basename } from "node:path";
import { errorText } from "../../core/errors.ts";
import { createJudgeEnv } from "./env.ts";
import { globMatch, matchNaming } from "./globs.ts";
import { analyzerFor } from "./programs/index.ts";
import { loadSyntax, type ParsedScript, parseScript } from "./syntax.ts";
import { judgeTargets, type TargetCheck } from "./targets.ts";
import {
  type Call,
  type CommandPolicy,
  type CommandVerdict,
  emptyAnalysis,
  isDynamic,
  isOptionWord,
  type JudgeEnv,
  type PolicyContext,
  type Risk,
  type Word,
} from "./types.ts";

type Outcome =
  | { kind: "allowed" }
  | { kind: "denied"; reason: string }
  | { kind: "unjudgeable"; reason: string }
  | { kind: "not-allowed"; reason: string };

interface Judged {
  outcome: Outcome;
  /** Every risk of the command and of what it runs, for the views of a wrapper around it. */
  risks: Risk[];
  targets: TargetCheck[];
}

const ALLOWED: Outcome = { kind: "allowed" };
const MAX_DEPTH = 8;

/** Whether `policy` judges commands at all (else every command is allowed, nothing parsed). */
function judged(policy: CommandPolicy): boolean {
  return policy.allow !== undefined || (policy.deny !== undefined && policy.deny.length > 0);
}

/**
 * Starts loading the shell parser `checkCommand` will need for `policy` (1.5 MB of JavaScript,
 * ~25 ms), so that a run can have it load while the model streams its first tool call rather than
 * when the first command is judged. Never throws; a failed load is reported by `checkCommand`.
 */
export function preloadCommandPolicy(policy: CommandPolicy): void {
  if (judged(policy)) loadSyntax().catch(() => {});
}

/**
 * Judges `command` against the policy. Never throws; without allow or deny lists everything is
 * allowed (and the command is not parsed).
 */
export async function checkCommand(
  command: string,
  policy: CommandPolicy,
  context: PolicyContext = {},
): Promise<CommandVerdict> {
  if (!judged(policy)) return { allowed: true };
  try {
    const loaded = await loadSyntax();
    const workspace = path.resolve(context.workspace ?? process.cwd());
    const parse = (code: string) => parseScript(loaded, code);
    // A command that changes folder (`cd`, `pushd`, `popd`, anywhere: in `eval` code, behind
    // `builtin`) makes relative paths unknown; judged again so package scripts are not read either.
    let cwdKnown = true;
    let judge = new Judge(
      policy,
      createJudgeEnv(workspace, true, (code) => parse(code).calls),
      parse,
    );
    let judged = judge.script(command, [], 0);
    if (judge.changesFolder) {
      cwdKnown = false;
      judge = new Judge(
        policy,
        createJudgeEnv(workspace, false, (code) => parse(code).calls),
        parse,
      );
      judged = judge.script(command, [], 0);
    }
    if (judged.outcome.kind === "denied" || judged.outcome.kind === "unjudgeable") {
      return { allowed: false, reason: judged.outcome.reason };
    }
    const refusal = await judgeTargets(judged.targets, {
      workspace,
      protectedPaths: context.protectedPaths ?? [],
      cwdKnown,
    });
    if (refusal !== undefined) return { allowed: false, reason: refusal };
    if (judged.outcome.kind === "not-allowed") return { allowed: false, reason: judged.outcome.reason };
    return { allowed: true };
  } catch (error) {
    return {
      allowed: false,
      reason: `the command could not be judged (${errorText(error)})`,
    };
  }
}

class Judge {
  /** Set once a judged command changes folder. */
  changesFolder = false;
  private readonly policy: CommandPolicy;
  private readonly env: JudgeEnv;
  private readonly parse: (code: string) => ParsedScript;

  constructor(policy: CommandPolicy, env: JudgeEnv, parse: (code: string) => ParsedScript) {
    this.policy = policy;
    this.env = env;
    this.parse = parse;
  }

  script(code: string, inherited: Word[], depth: number): Judged {
    const judged: Judged = { outcome: ALLOWED, risks: [], targets: [] };
    if (depth > MAX_DEPTH)
      return { ...judged, outcome: unjudgeable("commands are nested too deeply to judge") };
    let parsed: ParsedScript;
    try {
      parsed = this.parse(code);
    } catch (error) {
      return {
        ...judged,
        outcome: unjudgeable(`the command could not be parsed (${(error as Error).message})`),
      };
    }
    for (const redirect of parsed.redirects) {
      const { target, kind, op } = redirect;
      if (kind === "heredoc") continue;
      if (kind === "duplicate" && !isDynamic(target) && /^(\d+-?|-)$/.test(target.text)) continue;
      const writes = kind === "write" || op === ">&";
      judged.targets.push({ word: target, by: `\`${op}\``, kind: writes ? "write" : "read" });
    }
    let notAllowed: Outcome | undefined;
    for (const call of parsed.calls) {
      const result = this.call({ assigns: [...inherited, ...call.assigns], words: call.words }, depth);
      judged.targets.push(...result.targets);
      if (result.outcome.kind === "denied" || result.outcome.kind === "unjudgeable")
        return { ...judged, outcome: result.outcome };
      if (result.outcome.kind === "not-allowed") notAllowed ??= result.outcome;
    }
    if (parsed.refused !== undefined) return { ...judged, outcome: unjudgeable(parsed.refused) };
    return { ...judged, outcome: notAllowed ?? ALLOWED };
  }

  call(call: Call, depth: number): Judged {
    const tokens = [...call.assigns, ...call.words];
    const text = tokens.map((word) => word.text).join(" ");
    const judged: Judged = { outcome: ALLOWED, risks: [], targets: [] };
    if (depth > MAX_DEPTH)
      return { ...judged, outcome: unjudgeable("commands are nested too deeply to judge") };
    const assignRisks = call.assigns.map(
      (word): Risk => ({
        word,
        chars: Math.max(word.text.indexOf("="), 0) + 1,
        why: "sets an environment variable for the command, which can make it load other code (`NODE_OPTIONS`, `LD_PRELOAD`, `GIT_CONFIG_*`)",
      }),
    );
    const name = call.words[0];
    if (name === undefined) {
      const denied = this.denied([{ text, shown: text }]);
      if (denied) return { ...judged, outcome: denied };
      return { ...judged, risks: assignRisks, outcome: this.allowedByPattern(tokens, assignRisks, text) };
    }
    if (isDynamic(name) || name.glob || name.tilde || /[*?[{~]/.test(name.text)) {
      return { ...judged, outcome: unjudgeable(`\`${text}\`: the command name is not a literal word`) };
    }
    const program = basename(name.text);
    if (program === "cd" || program === "pushd" || program === "popd") this.changesFolder = true;
    const analysis = analyzerFor(program)?.({ name: program, call, env: this.env }) ?? emptyAnalysis();
    const rest = call.words.slice(1).map((word) => word.text);
    const bare = [name.text, ...rest].join(" ");
    const normalized =
      analysis.normalized && [program, ...analysis.normalized.slice(1).map((word) => word.text)].join(" ");
    const denied = this.denied([
      { text: bare, shown: bare },
      { text: [program, ...rest].join(" "), shown: bare },
      { text, shown: text },
      ...(normalized ? [{ text: normalized, shown: bare, as: true }] : []),
    ]);
    if (denied) return { ...judged, outcome: denied };
    if (analysis.refuse !== undefined)
      return { ...judged, outcome: unjudgeable(`\`${text}\`: ${analysis.refuse}`) };

    const own = [...assignRisks, ...analysis.risks];
    judged.risks.push(...own);
    judged.targets.push(...analysis.writes.map((write): TargetCheck => ({ ...write, kind: "write" })));
    const instead: Outcome[] = [];
    const also: Outcome[] = [];
    const codeRisks: Risk[] = [];
    for (const inner of analysis.inner) {
      const result = this.call(inner.call, depth + 1);
      if (inner.mode === "forwarded") {
        const only = inner.only ?? new Set<Word>();
        if (result.outcome.kind === "unjudgeable") {
          for (const word of only) {
            if (isDynamic(word) || isOptionWord(word))
              judged.risks.push({
                word,
                chars: word.text.length,
                why: "is passed on to a script whose command cannot be judged",
              });
          }
        } else judged.risks.push(...result.risks.filter((risk) => only.has(risk.word)));
        judged.targets.push(...result.targets.filter((target) => only.has(target.word)));
        continue;
      }
      if (result.outcome.kind === "denied" || result.outcome.kind === "unjudgeable")
        return { ...judged, outcome: result.outcome };
      judged.risks.push(...result.risks);
      judged.targets.push(...result.targets);
      if (inner.mode === "instead") instead.push(result.outcome);
      if (inner.mode === "also") also.push(result.outcome);
    }
    for (const script of analysis.scripts) {
      const result = this.script(script.code.text, script.assigns, depth + 1);
      if (result.outcome.kind === "denied" || result.outcome.kind === "unjudgeable")
        return { ...judged, outcome: result.outcome };
      judged.targets.push(...result.targets);
      codeRisks.push({
        word: script.code,
        chars: script.code.text.length,
        why: "is code it runs, judged by its own commands",
      });
      if (script.mode === "instead") instead.push(result.outcome);
    }
    if (this.policy.allow === undefined) return judged;

    const whole = this.allowedByPattern(tokens, [...judged.risks, ...codeRisks], text);
    const alsoRefused = also.find((outcome) => outcome.kind !== "allowed");
    if (whole.kind === "allowed") return { ...judged, outcome: alsoRefused ?? ALLOWED };
    // A wrapper is allowed by what it runs, unless it adds a risk of its own (`env -C dir`); the
    // assignments before it go to the command it runs and are judged there.
    const insteadRefused = instead.find((outcome) => outcome.kind !== "allowed");
    if (instead.length > 0 && analysis.risks.length === 0) {
      return { ...judged, outcome: insteadRefused ?? alsoRefused ?? ALLOWED };
    }
    if (instead.length > 0 && analysis.risks[0] && insteadRefused === undefined) {
      return { ...judged, outcome: { kind: "not-allowed", reason: riskReason(text, analysis.risks[0]) } };
    }
    // `X=1 cmd` where `cmd` alone would be allowed: say what the assignment does.
    if (
      whole.kind === "not-allowed" &&
      assignRisks[0] &&
      this.allowedByPattern(call.words, [], text).kind === "allowed"
    ) {
      return { ...judged, outcome: { kind: "not-allowed", reason: riskReason(text, assignRisks[0]) } };
    }
    return { ...judged, outcome: whole };
  }

  /** A deny pattern matching one of the forms of a command, as an outcome. */
  private denied(forms: { text: string; shown: string; as?: boolean }[]): Outcome | undefined {
    for (const pattern of this.policy.deny ?? []) {
      const hit = forms.find((form) => globMatch(pattern, form.text));
      if (hit === undefined) continue;
      const as = hit.as ? ` (read as \`${hit.text}\`)` : "";
      return { kind: "denied", reason: `\`${hit.shown}\` matches the deny pattern \`${pattern}\`${as}` };
    }
    return undefined;
  }

  /** Whether an allow pattern matches `tokens` naming every risk. */
  private allowedByPattern(tokens: Word[], risks: Risk[], text: string): Outcome {
    const allow = this.policy.allow;
    if (allow === undefined) return ALLOWED;
    let unnamed: { pattern: string; risk: Risk } | undefined;
    for (const pattern of allow) {
      const match = matchNaming(pattern, tokens, risks);
      if (match.kind === "named") return ALLOWED;
      if (match.kind === "unnamed") unnamed ??= { pattern, risk: match.risk };
    }
    if (unnamed) return { kind: "not-allowed", reason: riskReason(text, unnamed.risk, unnamed.pattern) };
    return { kind: "not-allowed", reason: `\`${text}\` is not in the allow list (${allow.join(", ")})` };
  }
}

/** Why a risky word refuses a command, for the model. */
function riskReason(text: string, risk: Risk, pattern?: string): string {
  const matched =
    pattern === undefined ? "" : `; \`${pattern}\` matches the command but does not spell it out`;
  return `\`${text}\`: \`${risk.word.text}\` ${risk.why}${matched} (an allow pattern must name such a word literally; a \`*\` names none)`;
}

function unjudgeable(reason: string): Outcome {
  return { kind: "unjudgeable", reason };
}
