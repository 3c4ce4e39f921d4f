/**
 * The task spec and hook scripts come from the trusted commit (see `trustedCommit`), not from the
 * pull request: a PR must not rewrite the instructions or the checks that run with this job's
 * secrets. The spec is read with `git show <sha>:<path>`; when the checkout's copy differs, the
 * trusted copy is written to a temp file and run instead. Hook scripts cannot be swapped that
 * way (they run in the workspace), so a hook script that differs from the trusted commit refuses
 * the run.
 */
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { errorText } from "../core/errors.ts";
import { parseYaml } from "../system/yaml-input.ts";
import { git } from "./checkout-trust.ts";

export type TrustedSpec =
  | {
      ok: true;
      /** The spec file to run: the checkout's own when it matches the trusted commit, else a temp copy. */
      taskFile: string;
      /** True when the checkout's spec differed and the trusted copy is used. */
      replaced: boolean;
      /** The hook scripts compared with the trusted commit, relative to `agentDir`. */
      checkedScripts: string[];
      /** Where the agent works: `agentDir` when given, else the trusted spec's `workdir` resolved against the spec's folder. */
      agentDir: string;
    }
  | { ok: false; message: string };

/**
 * Resolves `taskFile` (absolute) against commit `sha`. Fetches the commit once
 * (`git fetch --depth=1 origin <sha>`) when the checkout lacks it. `agentDir` is where hook
 * commands run (the `working-directory` input); absent, the trusted spec's `workdir` against the
 * checkout's folder of the spec (never the temp copy's). Never throws: problems come back as `{ ok: false, message }` (fail closed).
 */
export async function taskFromTrustedCommit(options: {
  sha: string;
  taskFile: string;
  agentDir?: string;
  /** Where the trusted copy goes. Default: RUNNER_TEMP, else the OS temp dir. */
  tempDir?: string;
}): Promise<TrustedSpec> {
  const { sha, taskFile } = options;
  const short = sha.slice(0, 12);
  const repoDir = path.dirname(taskFile);
  if (!(await commitPresent(sha, repoDir))) {
    await git(["fetch", "--no-tags", "--depth=1", "origin", sha], { cwd: repoDir });
    if (!(await commitPresent(sha, repoDir))) {
      return {
        ok: false,
        message: `the trusted commit ${short} is not in the checkout and could not be fetched, so the task spec cannot be read from it (fetch it, e.g. actions/checkout with fetch-depth: 0). Not running`,
      };
    }
  }
  const trusted = await fileAtCommit(sha, taskFile);
  if (trusted === undefined) {
    return {
      ok: false,
      message: `the task spec ${path.basename(taskFile)} does not exist at the trusted commit ${short}: a pull request cannot bring its own spec. Not running`,
    };
  }
  // Not a plain readFile: a FIFO would block it forever.
  const local = await readFileIfRegular(taskFile).catch(() => undefined);
  let runFile = taskFile;
  const replaced = local === undefined || !local.equals(trusted);
  if (replaced) {
    const base = options.tempDir || process.env.RUNNER_TEMP || os.tmpdir();
    try {
      const dir = await mkdtemp(path.join(base, "agent-run-trusted-spec-"));
      runFile = path.join(dir, path.basename(taskFile));
      await writeFile(runFile, trusted);
    } catch (error) {
      const reason = errorText(error);
      return {
        ok: false,
        message: `the checkout's task spec differs from the trusted commit ${short}, and the trusted copy could not be written to ${base} (${reason}). Not running`,
      };
    }
  }

  const agentDir =
    options.agentDir ?? path.resolve(path.dirname(taskFile), specWorkdir(trusted.toString("utf8")));
  const checkedScripts: string[] = [];
  for (const word of hookWords(trusted.toString("utf8"))) {
    const file = path.resolve(agentDir, word);
    const atCommit = await fileAtCommit(sha, file);
    const onDisk = await readFileIfRegular(file);
    if (atCommit === undefined && onDisk === undefined) continue;
    const rel = path.relative(agentDir, file).split(path.sep).join("/");
    if (atCommit === undefined || onDisk === undefined || !atCommit.equals(onDisk)) {
      return {
        ok: false,
        message: `the hook script ${rel} differs from the trusted commit ${short} (the pull request changed or added it); hooks must not run code the PR wrote. Not running`,
      };
    }
    checkedScripts.push(rel);
  }
  return { ok: true, taskFile: runFile, replaced, checkedScripts, agentDir };
}

/** The spec's `workdir` as written; "." when absent or unreadable (the runner reports a bad spec). */
export function specWorkdir(specText: string): string {
  try {
    // parseYaml, not parseDocument: linear on 100,000 keys, no alias expansion without a budget.
    const workdir = parseYaml(specText).doc.get("workdir");
    return typeof workdir === "string" && workdir !== "" ? workdir : ".";
  } catch {
    return ".";
  }
}

/**
 * The words of every hook command in the spec that could name a file (`./ci/guard.sh`,
 * `scripts/check.py`, `ci/lint` ...): no options, no templates, no shell operators.
 */
export function hookWords(specText: string): string[] {
  let doc: unknown;
  try {
    doc = parseYaml(specText).value;
  } catch {
    return [];
  }
  const hooks = isRecord(doc) ? doc.hooks : undefined;
  if (!isRecord(hooks)) return [];
  const words = new Set<string>();
  for (const rules of Object.values(hooks)) {
    if (!Array.isArray(rules)) continue;
    for (const rule of rules) {
      if (!isRecord(rule) || typeof rule.run !== "string") continue;
      for (const raw of rule.run.replace(/\{\{[^}]*\}\}/g, " ").split(/[\s;&|()<>]+/)) {
        const word = raw.replace(/^['"]|['"]$/g, "");
        if (
          /^[\w./@+-]+$/.test(word) &&
          !word.startsWith("-") &&
          /[./]/.test(word) &&
          word !== "." &&
          word !== ".."
        ) {
          words.add(word);
        }
      }
    }
  }
  return [...words];
}

async function commitPresent(sha: string, cwd: string): Promise<boolean> {
  return !(await git(["cat-file", "-e", `${sha}^{commit}`], { cwd })).failed;
}

/** The blob at `sha` for the absolute path `file`, or undefined when it is not a file there. */
async function fileAtCommit(sha: string, file: string): Promise<Buffer | undefined> {
  const cwd = await nearestDir(path.dirname(file));
  if (cwd === undefined) return undefined;
  const rel = `./${path.relative(cwd, file).split(path.sep).join("/")}`;
  const type = await git(["cat-file", "-t", `${sha}:${rel}`], { cwd });
  if (type.failed || type.stdout.trim() !== "blob") return undefined;
  const shown = await git(["cat-file", "blob", `${sha}:${rel}`], { cwd });
  return shown.failed ? undefined : Buffer.from(shown.stdout, "utf8");
}

/** `dir` or its closest existing ancestor (a PR may have deleted the folder). */
async function nearestDir(dir: string): Promise<string | undefined> {
  for (let current = dir; ; current = path.dirname(current)) {
    if ((await stat(current).catch(() => undefined))?.isDirectory()) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

async function readFileIfRegular(file: string): Promise<Buffer | undefined> {
  const info = await stat(file).catch(() => undefined);
  return info?.isFile() ? readFile(file) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
