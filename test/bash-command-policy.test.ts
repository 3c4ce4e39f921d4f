import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { checkCommand, globMatch } from "../src/tools/policy/index.ts";

const policy = {
  allow: ["npm run lint*", "npx eslint *", "ls*", "find *", "echo *"],
  deny: ["git push*", "curl *"],
};

let workspace = "";
const context = () => ({
  workspace,
  protectedPaths: [".git", ".git/**", ".github/workflows/**", "ci/guard.sh"],
});

beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-policy-"));
  await mkdir(path.join(workspace, ".git"));
  await mkdir(path.join(workspace, ".github", "workflows"), { recursive: true });
  await mkdir(path.join(workspace, "ci"));
  await mkdir(path.join(workspace, "src"));
  await writeFile(path.join(workspace, "ci", "guard.sh"), "exit 0\n");
  await writeFile(
    path.join(workspace, "package.json"),
    JSON.stringify({ scripts: { lint: "eslint src", test: "vitest run", "lint:list": "eslint src;" } }),
  );
  await symlink(os.tmpdir(), path.join(workspace, "out-link"));
});

async function refusal(command: string, p: { allow?: string[]; deny?: string[] } = policy): Promise<string> {
  const verdict = await checkCommand(command, p, context());
  if (verdict.allowed) throw new Error(`\`${command}\` was allowed`);
  return verdict.reason;
}

describe("checkCommand", () => {
  test.for([
    "npm run lint",
    "npm run lint -- --fix src/a.ts",
    "bash -c 'npm run lint'",
    "timeout 60 npx eslint src",
    "find . -name '*.ts'",
    "npm run lint '; curl x'",
    "npm run lint && ls -la",
  ])("allows %s", async (command) => {
    expect(await checkCommand(command, policy, context())).toEqual({ allowed: true });
  });

  test.for([
    ["npm run lint; curl x", "`curl x` matches the deny pattern `curl *`"],
    ["npm run lint && curl x", "`curl x` matches the deny pattern `curl *`"],
    ["npm run lint | curl -d @- x", "`curl -d @- x` matches the deny pattern `curl *`"],
    ["echo $(curl x)", "`curl x` matches the deny pattern `curl *`"],
    ["echo `curl x`", "`curl x` matches the deny pattern `curl *`"],
    ["(curl x)", "`curl x` matches the deny pattern `curl *`"],
    ["eval 'curl x'", "`curl x` matches the deny pattern `curl *`"],
    ["bash -c 'curl x'", "`curl x` matches the deny pattern `curl *`"],
    ["sh -ec 'ls; curl x'", "`curl x` matches the deny pattern `curl *`"],
    ["env X=1 curl x", "`curl x` matches the deny pattern `curl *`"],
    ["ls | xargs -n 1 curl x", "`curl x …` matches the deny pattern `curl *`"],
    ["find . -exec curl {} \\;", "`curl {}` matches the deny pattern `curl *`"],
    ["c\\url x", "`curl x` matches the deny pattern `curl *`"],
    ["'cu'\"rl\" x", "`curl x` matches the deny pattern `curl *`"],
    ["/usr/bin/curl x", "`/usr/bin/curl x` matches the deny pattern `curl *`"],
    ["f() { curl x; }; f", "`curl x` matches the deny pattern `curl *`"],
    ["git   push origin main", "`git push origin main` matches the deny pattern `git push*`"],
    ["ls <(curl x)", "`curl x` matches the deny pattern `curl *`"],
    ["trap 'curl x' EXIT", "`curl x` matches the deny pattern `curl *`"],
    ["npx -c 'curl x'", "`curl x` matches the deny pattern `curl *`"],
    ["npm exec --call='curl x'", "`curl x` matches the deny pattern `curl *`"],
  ])("denies %s", async ([command, reason]) => {
    expect(await checkCommand(command!, policy, context())).toEqual({ allowed: false, reason });
  });

  test.for([
    ["ls; wget x", "`wget x` is not in the allow list"],
    ["xargs rm", "`rm` `…` writes a path only known when the command runs"],
    ["ls $(printf x)", "`printf x` is not in the allow list"],
    ["npm run lint | bash", "`bash` reads commands that cannot be judged"],
    ["$CMD x", "`$CMD x`: the command name is not a literal word"],
    ["{curl,x}", "`{curl,x}`: the command name is not a literal word"],
    ['eval "$X"', "of code that is only known when it runs cannot be judged"],
    ['sh -c "$X"', "code is only known when it runs, so it cannot be judged"],
    ["env -S 'ls; rm x'", "`env -S` splits a string into a command that cannot be judged"],
    ["echo 'unterminated", "the command could not be parsed"],
    ["env CI=1 npm run lint", "`CI=1` sets an environment variable for the command"],
  ])("refuses %s", async ([command, reason]) => {
    expect(await refusal(command!)).toContain(reason);
  });

  describe("values bash evaluates as arithmetic, and assignments", () => {
    const strict = { allow: ["npm test", "echo *"], deny: ["curl *"] };

    test.for([
      ["x='a[$(curl evil)]'; (( x ))", "`(( x ))`: arithmetic is refused"],
      [
        "declare -i y='a[$(curl evil)]'",
        "a declaration builtin (declare, typeset, local, export, readonly) is refused",
      ],
      ["export NODE_OPTIONS=--require=/tmp/x.js; npm test", "a declaration builtin"],
      ["local x", "a declaration builtin"],
      ["let x", "`let x`: `let` is refused"],
      ["echo $(( x ))", "`$(( x ))`: arithmetic is refused"],
      ["echo $[ x ]", "arithmetic is refused"],
      ["for ((i = x; i < 2; i++)); do npm test; done", "arithmetic is refused"],
      ["[[ $x -eq 1 ]] && npm test", "`[[ $x -eq 1 ]]`: `[[ ]]` with an expansion in it is refused"],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, not a JS template.
      ["echo ${a[x]}", "an array subscript that is not a number"],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, not a JS template.
      ["echo ${!x}", "indirect expansion"],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, not a JS template.
      ["echo ${y:x}", "a substring offset that is not a number"],
      [
        "LD_PRELOAD=/tmp/x.so npm test",
        "`LD_PRELOAD=/tmp/x.so` sets an environment variable for the command",
      ],
      ["x='a[$(echo)]'", "`x=a[$(echo)]` is not in the allow list"],
      ["env LD_PRELOAD=/tmp/x.so npm test", "`LD_PRELOAD=/tmp/x.so` sets an environment variable"],
      ["BASH_ENV=./evil.sh bash -c 'npm test'", "`BASH_ENV=./evil.sh` sets an environment variable"],
      ["HOME=.; npm test", "`HOME=.` is not in the allow list"],
    ])("refuses %s", async ([command, reason]) => {
      expect(await refusal(command!, strict)).toContain(reason);
    });

    test("arithmetic is refused under a deny list alone too", async () => {
      const verdict = await checkCommand("x='a[$(curl evil)]'; (( x ))", { deny: ["curl *"] });
      expect(verdict.allowed).toBe(false);
    });

    test.for([
      "npm test",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, not a JS template.
      'echo "${a[@]}" ${a[0]} ${x:1:2} ${x:-default} ${#x}',
      "[[ -f package.json ]] && npm test",
    ])("still allows %s", async (command) => {
      expect(await checkCommand(command, strict, context())).toEqual({ allowed: true });
    });

    test("an allow pattern that spells the assignments out allows them; deny patterns match without them", async () => {
      const withCi = { allow: ["CI=1 npm test"], deny: ["curl *"] };
      expect(await checkCommand("CI=1 npm test", withCi, context())).toEqual({ allowed: true });
      expect(await checkCommand("env CI='1' npm test", withCi, context())).toEqual({ allowed: true });
      expect(await checkCommand("CI=1 timeout 5 npm test", withCi, context())).toEqual({ allowed: true });
      expect(await checkCommand("X=1 curl x", { deny: ["curl *"] })).toEqual({
        allowed: false,
        reason: "`curl x` matches the deny pattern `curl *`",
      });
      // `CI=*` names the variable, not a value: any value of CI, nothing else.
      const anyCi = { allow: ["CI=* npm test"] };
      expect(await checkCommand("CI=true npm test", anyCi, context())).toEqual({ allowed: true });
      expect((await checkCommand("NODE_OPTIONS=x npm test", anyCi, context())).allowed).toBe(false);
    });
  });

  test("a deny list alone still judges every simple command", async () => {
    expect(await checkCommand("ls && curl x", { deny: ["curl *"] })).toEqual({
      allowed: false,
      reason: "`curl x` matches the deny pattern `curl *`",
    });
    expect(await checkCommand("ls && echo curl", { deny: ["curl *"] })).toEqual({ allowed: true });
  });

  test("an empty allow list allows nothing; no policy allows anything", async () => {
    expect((await checkCommand("ls", { allow: [] })).allowed).toBe(false);
    expect(await checkCommand("anything | goes; here", {})).toEqual({ allowed: true });
  });

  test("globs span slashes and spaces, and match the whole text", () => {
    expect(globMatch("npm run lint*", "npm run lint src/a/b.ts")).toBe(true);
    expect(globMatch("npm run lint", "npm run lint --fix")).toBe(false);
    expect(globMatch("npm run lint?", "npm run lint2")).toBe(true);
    expect(globMatch("npx  eslint *", "npx eslint .")).toBe(true);
  });

  test("a long command with a many-star pattern is judged quickly (no regex backtracking)", async () => {
    const long = `echo ${"a".repeat(20_000)}`;
    const started = performance.now();
    expect((await checkCommand(long, { allow: ["*a*a*a*a*a*a*a*b"] }, context())).allowed).toBe(false);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("redirections are judged", () => {
  test.for([
    "npm run lint > lint.log",
    "npm run lint >> lint.log 2>&1",
    "npm run lint &> lint.log",
    "npm run lint > /dev/null 2> /dev/stderr",
    "npm run lint >&2",
    "npm run lint 3>&1 1>&2 2>&3 3>&-",
    "echo hi >| src/out.txt",
    "echo hi < package.json",
    "cat <<'EOF' | npx eslint --stdin\nconst x = 1;\nEOF",
    "npx eslint --stdin <<< 'var x'",
    "echo x > out-link-is-not-used.txt",
  ])("allows %s", async (command) => {
    const p = { allow: [...policy.allow, "cat"] };
    expect(await checkCommand(command, p, context())).toEqual({ allowed: true });
  });

  test.for([
    ["npm run lint > ../outside.txt", "`>` `../outside.txt` writes outside what the policy allows"],
    ["echo x > /tmp/x", "`/tmp/x` writes outside"],
    ["echo x >> ~/.bashrc", "writes a path only known when the command runs"],
    ["echo x > $HOME/x", "writes a path only known when the command runs"],
    ["echo x > .git/config", "writes `.git/config`, a protected path (`.git/**`)"],
    ["echo x > .github/workflows/ci.yml", "a protected path (`.github/workflows/**`)"],
    ["echo exit 0 > ci/guard.sh", "writes `ci/guard.sh`, a protected path"],
    ["echo x >& /tmp/x", "`>&` `/tmp/x` writes outside"],
    ["echo x &>> /tmp/x", "`&>>` `/tmp/x` writes outside"],
    ["echo x <> /tmp/x", "`<>` `/tmp/x` writes outside"],
    ["echo x > out-link/x", "leads outside the workspace"],
    ["{ echo x; } > /tmp/x", "`/tmp/x` writes outside"],
    ["(echo x) > /tmp/x", "`/tmp/x` writes outside"],
    ["for f in a; do echo $f; done > /tmp/x", "`/tmp/x` writes outside"],
    ["> /tmp/x", "`/tmp/x` writes outside"],
    ["exec > /tmp/x", "`/tmp/x` writes outside"],
    ["npm run lint < /etc/passwd", "`<` `/etc/passwd` reads outside"],
    ["echo x > {a,b}", "writes a path only known when the command runs"],
    ["cd src && echo x > a.txt", "a relative path after the command changes folder"],
    ["echo x > .git/../.git/config", "a protected path"],
  ])("refuses %s", async ([command, reason]) => {
    expect(await refusal(command!)).toContain(reason);
  });
});

describe("options that make an allowed program run other code or write elsewhere", () => {
  const brief = { allow: ["npm run lint*", "npx eslint *", "git diff*"] };
  const lintFixOld = { allow: ["npm run lint*", "eslint *", "git *"], deny: ["git push*"] };

  test.for([
    [
      "npm run lint --node-options=--import=data:text/javascript,x",
      "`--node-options=--import=data:text/javascript,x` sets the Node.js options",
    ],
    ["npm run lint --script-shell=./evil.sh", "sets the shell scripts run in"],
    ["npm run lint --prefix=/tmp/x", "runs the package (and its scripts) of another folder"],
    ["npm run lint --userconfig=./evil.npmrc", "reads configuration from a file it names"],
    ["npm run lint -g", "works on the global installation"],
    [
      "npm run lint --foreground-scripts --loglevel=silly --nodeoptions=x",
      "sets configuration that can make it run other code",
    ],
    ["npm run lint -- --config=evil.mjs", "`--config=evil.mjs` loads the configuration file it names"],
    ["npm run lint -- -c evil.mjs", "`-c` loads the configuration file it names"],
    ["npm run lint -- --rulesdir=rules", "`--rulesdir=rules` loads every rule module"],
    ["npm run lint -- -f ./formatter.mjs", "`-f` loads the formatter module it names"],
    ["npm run lint $X", "`$X` is only known when it runs"],
    [
      "npm run lint:list -- rm -rf .",
      "is passed on to the `lint:list` script, which this policy could not read",
    ],
    ["npx eslint -c evil.mjs src", "`-c` loads the configuration file it names"],
    ["npx eslint --config=evil.mjs src", "`--config=evil.mjs` loads the configuration file"],
    ["npx eslint -qc evil.mjs src", "`-qc` loads the configuration file"],
    ["npx eslint --rulesdir rules src", "`--rulesdir` loads every rule module"],
    ["npx eslint --plugin evil src", "`--plugin` loads the module it names"],
    ["npx eslint -f ./formatter.mjs src", "`-f` loads the formatter module it names"],
    ["npx eslint --format=eslint-formatter-evil src", "loads the formatter module it names"],
    ["npx eslint --resolve-plugins-relative-to /tmp src", "loads plugins from the folder it names"],
    ["npx eslint --parser ./p.js src", "`--parser` loads the module it names"],
    ["npx eslint -o /tmp/out src", "`-o` writes to the file it names"],
    ["npx eslint --output-file=/tmp/out src", "writes to the file it names"],
    ["npx eslint --cache --cache-location /tmp/c src", "`--cache-location` writes to the file it names"],
    ["npx eslint --init", "downloads and runs a configuration initializer"],
    ["npx eslint --inspect-config", "downloads and runs the configuration inspector"],
    ["npx eslint *", "`*` expands to file names when it runs, and a file named like an option"],
    [
      "npx eslint --fix -- *",
      '`eslint --fix` `*` writes outside what the policy allows: Path "out-link" goes through the symlink',
    ],
    ["npx eslint --fix ../other/a.js", "`eslint --fix` `../other/a.js` writes outside"],
    ["npx eslint --fix ci/guard.sh", "writes `ci/guard.sh`, a protected path"],
    [
      "npx eslint $(cat args.txt) src",
      "`$(cat args.txt)` is only known when it runs and could become an option of eslint",
    ],
    ["npx --package=evil eslint src", "`npx --package=evil eslint src` is not in the allow list"],
    ["git difftool -x 'sh -c id' HEAD", "`difftool` runs a diff tool"],
    ["git diff --output=/tmp/x", "`--output=/tmp/x` writes the output to a file"],
    ["git diff --output /tmp/x", "`--output` writes the output to a file"],
    ["git diff --outp=/tmp/x", "`--outp=/tmp/x` writes the output to a file"],
    ["git diff --ext-diff", "`--ext-diff` runs an external diff program"],
    ["git diff *", "`*` expands to file names when it runs"],
    ["git diff -- $(ls)", "`ls` is not in the allow list"],
    ["git diff $(git merge-base origin/main HEAD)", "put `--end-of-options` or `--` before it"],
  ])("refuses %s under the brief's allow list", async ([command, reason]) => {
    expect(await refusal(command!, brief)).toContain(reason);
  });

  test.for([
    ["git -C . push", "`git -C . push` matches the deny pattern `git push*` (read as `git push`)"],
    ["git --git-dir=.git push", "(read as `git push`)"],
    ["git --work-tree=. push origin", "(read as `git push origin`)"],
    ["git -c push.default=current push", "(read as `git push`)"],
    ["git --no-pager -P push", "(read as `git push`)"],
    ["command git push", "`git push` matches the deny pattern `git push*`"],
    ["\\git push", "`git push` matches the deny pattern"],
    ["/usr/bin/git push", "`/usr/bin/git push` matches the deny pattern"],
    ["exec git push", "`git push` matches the deny pattern"],
    ["env git push", "`git push` matches the deny pattern"],
    ["sudo git push", "`git push` matches the deny pattern"],
    ["bash -c 'git -C . push'", "(read as `git push`)"],
    ["git -c alias.x='!sh -c id' x", "`-c` sets any git configuration"],
    ["git --config-env=alias.x=EVIL x", "`--config-env=alias.x=EVIL` sets any git configuration"],
    ["git -C /tmp status", "`-C` runs git in another folder"],
    ["git --exec-path=. status", "makes git run its commands from another folder"],
    ["git --bare status", "makes git treat the current folder as a repository"],
    ["git st", "`st` is not a git command this policy knows"],
    ["git config core.pager 'sh -c id'", "`config` changes git configuration"],
    ["git grep -O'sh -c id' x", "opens the matching files with the pager command"],
    ["git rebase -x 'sh -c id' HEAD~1", "`-x` runs the shell command it is given"],
    ["git fetch --upload-pack='sh -c id' origin", "runs the program it names on the remote side"],
    ["git submodule foreach id", "`submodule` runs commands in submodules"],
    ["git clone -c core.fsmonitor=id . /tmp/x", "`clone` writes a repository wherever it names"],
    ["git worktree add /tmp/x", "`worktree` creates work trees wherever it names"],
    ["git format-patch -o /tmp/x HEAD~1", "`-o` writes the patches into any folder"],
    ["git archive -o /tmp/x.tar HEAD", "`-o` writes the archive wherever it names"],
    ["git apply --unsafe-paths x.patch", "writes outside the work tree"],
    ["git merge -s ../../evil main", "runs a `git-merge-<name>` program"],
    ["git log --ext-d", "`--ext-d` runs an external diff program"],
    ["GIT_EXTERNAL_DIFF=./evil.sh git diff", "sets an environment variable for the command"],
    ["eslint -c evil.mjs src", "`-c` loads the configuration file"],
  ])("refuses %s under the old lint-fix example's allow list", async ([command, reason]) => {
    expect(await refusal(command!, lintFixOld)).toContain(reason);
  });

  test.for([
    "npm run lint",
    "npm run lint -- --fix",
    "npm run lint -- --fix src/a.js",
    "npm run lint --silent",
    "npx eslint --fix src/a.js",
    "npx eslint --fix .",
    "npx eslint --fix src/*.js",
    "npx eslint --fix ./*.js",
    "npx eslint --fix -- src/*",
    "npx eslint -f json src",
    "npx eslint --max-warnings 0 --no-config-lookup src",
    "git diff",
    "git diff --stat HEAD~1 -- src",
    "git diff --no-ext-diff --name-only",
    "git diff origin/main...HEAD",
    'git diff --stat --end-of-options "$BASE"',
  ])("still allows %s under the brief's allow list", async (command) => {
    expect(await checkCommand(command, brief, context())).toEqual({ allowed: true });
  });

  test.for([
    "git status",
    "git --no-pager log --oneline -5",
    "git show HEAD:src/a.js",
    "git add -A",
    "git commit -m 'fix: lint'",
    "git stash",
    "git blame src/a.js",
  ])("still allows %s under `git *`", async (command) => {
    expect(await checkCommand(command, lintFixOld, context())).toEqual({ allowed: true });
  });

  test("a pattern that spells a risky option out allows it, and only it", async () => {
    const named = {
      allow: ["npx eslint -c eslint.config.mjs *", "git -C sub status", "npx eslint -f ./f.mjs src"],
    };
    expect(await checkCommand("npx eslint -c eslint.config.mjs src", named, context())).toEqual({
      allowed: true,
    });
    expect(await checkCommand("git -C sub status", named, context())).toEqual({ allowed: true });
    expect(await checkCommand("npx eslint -f ./f.mjs src", named, context())).toEqual({ allowed: true });
    // The second -c comes from the `*`, not from the pattern.
    expect(await refusal("npx eslint -c eslint.config.mjs -c evil.mjs src", named)).toContain(
      "`-c` loads the configuration",
    );
    expect(await refusal("git -C other status", named)).toContain("not in the allow list");
  });

  test.for([
    [
      'node -e \'require("child_process").execSync("id")\' scripts/a.js',
      "node *",
      "`-e` runs the code it is given",
    ],
    ["node --import=./evil.mjs scripts/a.js", "node *", "`--import=./evil.mjs` loads the module it names"],
    ["node --require ./evil.cjs scripts/a.js", "node *", "`--require` loads the module"],
    ["node --experimental_loader=./l.mjs a.js", "node *", "loads the module it names"],
    ["node --env-file=.env a.js", "node *", "reads environment variables"],
    ["node --redirect-warnings=/tmp/x a.js", "node *", "writes to the file it names"],
    ["node --some-v8-flag a.js", "node *", "is not one of the few Node.js options known to be harmless"],
    ["node - < a.js", "node *", "makes it read the program from stdin"],
    ["node node_modules/eslint/bin/eslint.js -c evil.mjs src", "node *", "`-c` loads the configuration file"],
    [
      "node ./node_modules/npm/bin/npm-cli.js run lint --node-options=x",
      "node *",
      "sets the Node.js options",
    ],
    ["eslint_d -c evil.mjs src", "eslint_d *", "`-c` loads the configuration file"],
    [
      "find /tmp -name '*.js' -exec npx eslint --fix {} +",
      "find *|npx eslint *",
      "`eslint --fix` `{}` writes outside",
    ],
    [
      "eval 'c''d ..' && npx eslint --fix a.js",
      "eval *|npx eslint *",
      "a relative path after the command changes folder",
    ],
    [
      "\\cd .. ; npx eslint --fix a.js",
      "cd *|npx eslint *",
      "a relative path after the command changes folder",
    ],
    ["node --test --test-reporter=./evil.mjs", "node *", "loads the reporter module it names"],
    ["npm install --prefix /tmp x", "npm install*", "runs the package (and its scripts) of another folder"],
    ["npx vitest --config evil.mjs", "npx vitest *", "is not one of the vitest options known to be harmless"],
    ["npx vitest --reporter=./evil.mjs", "npx vitest *", "loads the reporter module"],
    ["npx vitest --execArgv=--import=./x.mjs", "npx vitest *", "is not one of the vitest options"],
    ["npm test -- --config=evil.mjs", "npm test*", "is not one of the vitest options known to be harmless"],
    ["npx jest --testRunner=./evil.js", "npx jest *", "is not one of the jest options known to be harmless"],
    [
      "npx prettier --plugin=./evil.mjs .",
      "npx prettier *",
      "`--plugin=./evil.mjs` loads the module it names",
    ],
    ["npx prettier --config ./evil.mjs .", "npx prettier *", "`--config` loads the configuration file"],
    ["npx prettier --write ../a.js", "npx prettier *", "`prettier --write` `../a.js` writes outside"],
    ["npx tsc --outDir /tmp/x", "npx tsc *", "`--outDir` writes the output into the folder"],
    ["python3 -c 'import os'", "python3 *", "`-c` runs the code it is given"],
    ["python3 -m pytest -p evil", "python3 *", "`-p` loads the plugin module it names"],
    ["sed 's/x/id/e' a.txt", "sed *", "runs a command (sed's `e`)"],
    ["sed -n '1w /tmp/x' a.txt", "sed *", "writes a file (sed's `w`)"],
    ["sed -i 's/a/b/' /tmp/a.txt", "sed *", "`sed -i` `/tmp/a.txt` writes outside"],
    ["awk 'BEGIN { system(\"id\") }'", "awk *", "is awk code that may run commands"],
    ["find . -delete", "find *", "`-delete` deletes every file it finds"],
    ["find . -fprint /tmp/x", "find *", "`find -fprint` `/tmp/x` writes outside"],
    ["find . -exec rm {} +", "find *", "`rm {}` is not in the allow list"],
    ["find $X", "find *", "is only known when it runs and could become `-exec`"],
    ["fd -x rm", "fd *", "`rm` `{}` writes a path only known when the command runs"],
    ["fd -x echo", "fd *", "`echo {}` is not in the allow list"],
    ["rg --pre ./evil.sh x", "rg *", "`--pre` runs the command it names on every file"],
    ["sort -o /tmp/x a.txt", "sort *", "`sort -o` `/tmp/x` writes outside"],
    ["sort --compress-program=./evil.sh a.txt", "sort *", "runs the program it names"],
    ["tar --to-command=./evil.sh -xf a.tar", "tar *", "runs the command it names for every file"],
    ["tar czf /tmp/x.tgz src", "tar *", "`tar -czf` `/tmp/x.tgz` writes outside"],
    ["make -f /tmp/evil.mk", "make *", "`-f` reads the makefile it names"],
    ["make SHELL=./evil.sh lint", "make *", "overrides a make variable"],
    ["curl -o /tmp/x http://127.0.0.1/", "curl *", "`curl -o` `/tmp/x` writes outside"],
    ["curl -K ./evil.curlrc http://127.0.0.1/", "curl *", "reads options (any of them) from the file"],
    ["wget -e use_askpass=./evil.sh http://127.0.0.1/", "wget *", "runs the wgetrc command it is given"],
    ["echo x | tee /tmp/x", "*", "`tee` `/tmp/x` writes outside"],
    ["cp src/a.js /tmp/", "cp *", "`cp` `/tmp/` writes outside"],
    ["rm -rf .", "rm *", "changes everything in `.`, which holds the protected path"],
    ["mv .github gh", "mv *", "which holds the protected path `.github/workflows`"],
    ["rm -f ci/guard.sh", "rm *", "writes `ci/guard.sh`, a protected path"],
    [
      "ls | xargs npx eslint",
      "ls|npx eslint *",
      "`…` is read when it runs (from stdin or a file) and could be an option of eslint",
    ],
    ["ls | xargs -I{} npx eslint {}", "ls|npx eslint *", "could be an option of eslint"],
    ["ls | xargs -I@ sh -c 'npx eslint @'", "xargs *|ls", "`sh -c` code is only known when it runs"],
    ["env -C /tmp npx eslint src", "npx eslint *", "`-C` runs the command in another folder"],
    ["\\time -o /tmp/x npx eslint src", "npx eslint *", "`time -o` `/tmp/x` writes outside"],
    ["sudo npx eslint src", "npx eslint *", "`sudo npx eslint src` is not in the allow list"],
    ["watch -n1 'curl x'", "watch *", "`curl x` is not in the allow list"],
    ['bash -c "$(cat x)"', "bash *", "code is only known when it runs"],
    [
      "bash --rcfile ./evil.sh -i -c 'npx eslint src'",
      "npx eslint *",
      "`--rcfile` runs the file it names first",
    ],
  ])("refuses %s (allow %s)", async ([command, patterns, reason]) => {
    expect(await refusal(command!, { allow: patterns!.split("|") })).toContain(reason);
  });

  test.for([
    ["node scripts/check.js --import=x", "node *"],
    ["node --test --test-reporter=dot", "node *"],
    ["npm install --save-dev eslint@10", "npm install*"],
    ["npm ci --omit=dev --no-audit", "npm ci*"],
    ["node --no-warnings --enable-source-maps scripts/check.js", "node *"],
    ["npx vitest run --reporter=dot", "npx vitest *"],
    ["npm test -- --reporter=dot src/a.test.ts", "npm test*"],
    ["npx prettier --write src/a.js", "npx prettier *"],
    ["npx prettier --check .", "npx prettier *"],
    ["npx tsc --noEmit -p .", "npx tsc *"],
    ["python3 -m pytest tests -x", "python3 *"],
    ["sed -n '1,5p;/x/d' a.txt", "sed *"],
    ["sed -i.bak -e 's/a/b/g' -e '$a\\' src/a.txt", "sed *"],
    ["awk -F: '{ print $1 }' /etc/passwd", "awk *"],
    ["find . -name '*.js' -exec npx eslint --fix {} +", "find *|npx eslint *"],
    ["git ls-files -z | xargs -0 npx eslint --", "git ls-files*|xargs *"],
    ["sort -o sorted.txt a.txt", "sort *"],
    ["tar -xzf a.tgz", "tar *"],
    ["make lint", "make *"],
    ["rm -rf src/tmp", "rm *"],
    ["echo x | tee out.txt", "echo *|tee *"],
  ])("still allows %s (allow %s)", async ([command, patterns]) => {
    expect(await checkCommand(command!, { allow: patterns!.split("|") }, context())).toEqual({
      allowed: true,
    });
  });
});
