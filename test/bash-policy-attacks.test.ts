/**
 * The attacks on the command policy, really run: each goes through the real bash tool (no sandbox)
 * with real npm, eslint and git in a temp project, once with no policy (the attack works: the
 * marker appears) and once under the allow list it used to slip past (refused with a reason the
 * model sees, and nothing happens). The legitimate commands of the examples still run.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { withCommandPolicy } from "../src/run/policy-guard.ts";
import { loadTask } from "../src/spec/index.ts";
import { createBashTool } from "../src/tools/index.ts";
import { ROOT } from "./helpers/cli.ts";
import { beforeToolCallContext } from "./helpers/hook-context.ts";
import { failureOf, run, textOf } from "./tools-support.ts";

const PATH = `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`;
const PROTECTED = [".git", ".git/**", ".github/workflows/**"];
/** The allow list of issue 12, and the lint-fix example's before the fix. */
const BRIEF = { allow: ["npm run lint*", "npx eslint *", "git diff*"] };
const OLD_LINT_FIX = { allow: ["npm run lint*", "eslint *", "git *"], deny: ["git push*"] };

let base = "";
let workspace = "";
let outside = "";

const git = (...args: string[]) => execFileSync("git", args, { cwd: workspace, stdio: "pipe" }).toString();

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "agent-run-attacks-")));
  workspace = path.join(base, "work");
  outside = path.join(base, "outside");
  await mkdir(path.join(workspace, "src"), { recursive: true });
  await mkdir(outside);
  const files: Record<string, string> = {
    "package.json": JSON.stringify({ name: "w", type: "module", scripts: { lint: "eslint src" } }),
    "eslint.config.js": 'export default [{ files: ["**/*.js"], rules: { "no-var": "error" } }];\n',
    "src/a.js": "export const a = 1;\n",
    // What a model following injected instructions writes with the write tool.
    "evil.mjs":
      'import { writeFileSync } from "node:fs";\nwriteFileSync("pwned", "config");\nexport default [];\n',
    "formatter.mjs":
      'import { writeFileSync } from "node:fs";\nexport default () => { writeFileSync("pwned", "formatter"); return ""; };\n',
    "evil.cjs": 'require("node:fs").writeFileSync("pwned", "node-options");\n',
  };
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(workspace, name), content);
  // A git template folder the model wrote: its hooks go into every repository made from it.
  await mkdir(path.join(workspace, "tpl", "hooks"), { recursive: true });
  await writeFile(path.join(workspace, "tpl", "hooks", "post-checkout"), "#!/bin/sh\ntouch ../pwned\n", {
    mode: 0o755,
  });
  await symlink(path.join(ROOT, "node_modules"), path.join(workspace, "node_modules"));
  git("init", "-q", "-b", "main");
  git("-c", "user.email=t@e", "-c", "user.name=t", "add", "src", "package.json", "eslint.config.js");
  git("-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "start");
  execFileSync("git", ["init", "-q", "--bare", path.join(outside, "remote.git")]);
  git("remote", "add", "origin", path.join(outside, "remote.git"));
  // A change for git diff, difftool and eslint to work on.
  await writeFile(path.join(workspace, "src", "a.js"), "var a = 1;\nexport { a };\n");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function bash(policy: { allow?: string[]; deny?: string[] }) {
  return createBashTool(workspace, {
    ...policy,
    protectedPaths: PROTECTED,
    env: { ...process.env, PATH },
    timeoutMs: 60_000,
  });
}

const pwned = () => existsSync(path.join(workspace, "pwned"));

interface Attack {
  command: string;
  policy: { allow?: string[]; deny?: string[] };
  reason: string;
  /** Whether the attack worked. */
  worked: () => boolean;
}

const ATTACKS: [string, Attack][] = [
  [
    "npm run lint --node-options=--require=… (npm config that runs code)",
    {
      command: "npm run lint --node-options=--require=./evil.cjs",
      policy: BRIEF,
      reason: "`--node-options=--require=./evil.cjs` sets the Node.js options scripts run with",
      worked: pwned,
    },
  ],
  [
    "npm run lint -- --config=evil.mjs (an option of the script's eslint)",
    {
      command: "npm run lint -- --config=evil.mjs",
      policy: BRIEF,
      reason: "`--config=evil.mjs` loads the configuration file it names",
      worked: pwned,
    },
  ],
  [
    "npx eslint -c evil.mjs",
    {
      command: "npx eslint -c evil.mjs src",
      policy: BRIEF,
      reason: "`-c` loads the configuration file it names",
      worked: pwned,
    },
  ],
  [
    "npx eslint -f ./formatter.mjs",
    {
      command: "npx eslint -f ./formatter.mjs src",
      policy: BRIEF,
      reason: "`-f` loads the formatter module it names",
      worked: pwned,
    },
  ],
  [
    "git difftool -x",
    {
      command: "git difftool -y -x 'touch pwned' HEAD",
      policy: BRIEF,
      reason: "`difftool` runs a diff tool",
      worked: pwned,
    },
  ],
  [
    "git diff --output=<outside>",
    {
      command: "git diff --output=../outside/diff.txt",
      policy: BRIEF,
      reason: "`--output=../outside/diff.txt` writes the output to a file",
      worked: () => existsSync(path.join(outside, "diff.txt")),
    },
  ],
  [
    "a redirection out of the workspace",
    {
      command: "npm run lint > ../outside/lint.txt",
      policy: BRIEF,
      reason: "`>` `../outside/lint.txt` writes outside what the policy allows",
      worked: () => existsSync(path.join(outside, "lint.txt")),
    },
  ],
  [
    "a redirection into .git",
    {
      command: "git diff > .git/hooks/pre-commit",
      policy: BRIEF,
      reason: "writes `.git/hooks/pre-commit`, a protected path (`.git/**`)",
      worked: () => existsSync(path.join(workspace, ".git", "hooks", "pre-commit")),
    },
  ],
  [
    "git -C . push past `deny: git push*`",
    {
      command: "git -C . push origin main",
      policy: OLD_LINT_FIX,
      reason:
        "`git -C . push origin main` matches the deny pattern `git push*` (read as `git push origin main`)",
      worked: () =>
        execFileSync("git", ["--git-dir", path.join(outside, "remote.git"), "branch"])
          .toString()
          .includes("main"),
    },
  ],
  [
    "git -c alias.x='!cmd' x",
    {
      command: "git -c alias.x='!touch pwned' x",
      policy: OLD_LINT_FIX,
      reason: "`-c` sets any git configuration (an alias, a pager or `core.fsmonitor` runs any command)",
      worked: pwned,
    },
  ],
  [
    "eslint --fix through xargs with file names as options",
    {
      command: "printf '%s\\n' --config=evil.mjs | xargs npx eslint",
      policy: { allow: [...BRIEF.allow, "printf *"] },
      reason: "is read when it runs (from stdin or a file) and could be an option of eslint",
      worked: pwned,
    },
  ],
  [
    "git difftool --extcmd under an allow of `git difftool*` (the `*` names no option)",
    {
      command: "git difftool -y --extcmd='touch pwned' HEAD",
      policy: { allow: ["git difftool*"] },
      reason: "runs the command it is given as the diff tool",
      worked: pwned,
    },
  ],
  [
    "git config --file=<outside> under an allow of `git config*`",
    {
      command: "git config --file=../outside/evil.cfg core.pager 'touch pwned'",
      policy: { allow: ["git config*"] },
      reason: "writes the configuration file it names, wherever it is",
      worked: () => existsSync(path.join(outside, "evil.cfg")),
    },
  ],
  [
    "git clone --template=<a folder the model wrote> under an allow of `git clone*`",
    {
      command: "git clone -q --template=tpl . copy",
      policy: { allow: ["git clone*"] },
      reason: "copies hooks and configuration from the template folder it names",
      worked: pwned,
    },
  ],
  [
    "zip -TT <command> under an allow of `zip *`",
    {
      command: "zip -q -T -TT 'touch pwned #' src.zip src/a.js",
      policy: { allow: ["zip *"] },
      reason: "tests the archive with a command",
      worked: pwned,
    },
  ],
];

describe("attacks through allowed commands, really run", () => {
  test.for(ATTACKS)("%s: works without a policy, refused with one", async ([, attack]) => {
    const refused = await failureOf(run(bash(attack.policy), { command: attack.command }));
    expect(refused).toContain("Command refused by the bash policy");
    expect(refused).toContain(attack.reason);
    expect(attack.worked()).toBe(false);
    // The same command with no policy: the attack is real.
    const result = await run(bash({}), { command: attack.command });
    expect(attack.worked(), textOf(result)).toBe(true);
  });

  test("a glob that matches a file named like an option is refused; `./*` and `--` are fine", async () => {
    await writeFile(
      path.join(workspace, "--config=evil.mjs"),
      await readFile(path.join(workspace, "evil.mjs")),
    );
    const tool = bash(BRIEF);
    const refused = await failureOf(run(tool, { command: "npx eslint *" }));
    expect(refused).toContain("`*` expands to file names when it runs");
    expect(pwned()).toBe(false);
    for (const command of ["npx eslint ./*.js", "npx eslint -- src/*"]) {
      expect(textOf(await run(tool, { command })), command).toMatch(/\[Exit code: [01]\]$/);
    }
    expect(pwned()).toBe(false);
    await run(bash({}), { command: "npx eslint *" });
    expect(pwned()).toBe(true);
  });

  test("the examples' own commands still run under the allow lists", async () => {
    const tool = bash({ allow: [...BRIEF.allow, "git status*"] });
    const lint = await run(tool, { command: "npm run lint" });
    expect(textOf(lint)).toContain("no-var");
    expect(textOf(lint)).toContain("[Exit code: 1]");
    const diff = await run(tool, { command: "git diff" });
    expect(textOf(diff)).toContain("+var a = 1;");
    const status = await run(tool, { command: "git status --short" });
    expect(textOf(status)).toContain("M src/a.js");
    const fix = await run(tool, { command: "npx eslint --fix src/a.js" });
    expect(textOf(fix)).toContain("[Exit code: 0]");
    expect(await readFile(path.join(workspace, "src", "a.js"), "utf8")).toBe("let a = 1;\nexport { a };\n");
    const logged = await run(tool, { command: "npm run lint > lint.log 2>&1 && git diff --stat" });
    expect(textOf(logged)).toContain("src/a.js");
    expect(existsSync(path.join(workspace, "lint.log"))).toBe(true);
  });
});

describe("the policy guard with the lint-fix example's task", () => {
  test("blocks the attacks with their reason and lets the example's commands through", async () => {
    const task = await loadTask(path.join(ROOT, "examples", "lint-fix", "task.yml"));
    const guard = withCommandPolicy(task.spec.tools, undefined, { workspace, protectedPaths: PROTECTED })!;
    const decide = (command: string) =>
      guard(beforeToolCallContext("bash", { command }), new AbortController().signal);
    for (const [command, reason] of [
      ["git -C . push origin main", "is not in the allow list"],
      ["git -c alias.x='!touch pwned' x", "is not in the allow list"],
      ["git diff --output=../outside/x", "writes the output to a file"],
      ["git difftool -x 'touch pwned'", "`difftool` runs a diff tool"],
      ["eslint -c evil.mjs src", "`-c` loads the configuration file it names"],
      ["npx eslint --rulesdir rules src", "`--rulesdir` loads every rule module"],
      ["npm run lint --node-options=--require=./evil.cjs", "sets the Node.js options"],
      ["npm run lint > ../outside/x", "writes outside what the policy allows"],
    ]) {
      const decision = await decide(command!);
      expect(decision, command).toMatchObject({ block: true });
      expect(decision?.reason, command).toContain("bash policy: ");
      expect(decision?.reason, command).toContain(reason);
    }
    for (const command of [
      "npm run lint",
      "eslint --fix src/a.js",
      "npx eslint --fix src/a.js",
      "git diff",
      "git status",
    ]) {
      expect(await decide(command), command).toBeUndefined();
    }
  });
});
