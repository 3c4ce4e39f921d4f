import { describe, expect, test } from "vitest";
import { checkCommand, globMatch } from "../src/tools/command-policy.ts";

const policy = {
  allow: ["npm run lint*", "npx eslint *", "ls*", "find *", "echo *"],
  deny: ["git push*", "curl *"],
};

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
    expect(await checkCommand(command, policy)).toEqual({ allowed: true });
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
    ["ls | xargs -n 1 curl x", "`curl x` matches the deny pattern `curl *`"],
    ["find . -exec curl {} \\;", "`curl {}` matches the deny pattern `curl *`"],
    ["c\\url x", "`curl x` matches the deny pattern `curl *`"],
    ["'cu'\"rl\" x", "`curl x` matches the deny pattern `curl *`"],
    ["/usr/bin/curl x", "`/usr/bin/curl x` matches the deny pattern `curl *`"],
    ["f() { curl x; }; f", "`curl x` matches the deny pattern `curl *`"],
    ["git   push origin main", "`git push origin main` matches the deny pattern `git push*`"],
    ["ls <(curl x)", "`curl x` matches the deny pattern `curl *`"],
  ])("denies %s", async ([command, reason]) => {
    expect(await checkCommand(command!, policy)).toEqual({ allowed: false, reason });
  });

  test.for([
    ["ls; wget x", "`wget x` is not in the allow list"],
    ["xargs rm", "`rm` is not in the allow list"],
    ["ls $(printf x)", "`printf x` is not in the allow list"],
    ["npm run lint | bash", "`bash` reads commands that cannot be judged"],
    ["$CMD x", "`$CMD x`: the command name is not a literal word"],
    ["{curl,x}", "`{curl,x}`: the command name is not a literal word"],
    ['eval "$X"', "eval of code that is not literal"],
    ['sh -c "$X"', "the -c code is not literal"],
    ["env -S 'ls; rm x'", "runs code that cannot be judged"],
    ["echo 'unterminated", "the command could not be parsed"],
    ["env CI=1 npm run lint", "`CI=1 npm run lint` is not in the allow list"],
  ])("refuses %s", async ([command, reason]) => {
    const verdict = await checkCommand(command!, policy);
    expect(verdict.allowed).toBe(false);
    expect(verdict.allowed === false && verdict.reason).toContain(reason);
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
      ["LD_PRELOAD=/tmp/x.so npm test", "`LD_PRELOAD=/tmp/x.so npm test` is not in the allow list"],
      ["x='a[$(echo)]'", "`x=a[$(echo)]` is not in the allow list"],
      ["env LD_PRELOAD=/tmp/x.so npm test", "`LD_PRELOAD=/tmp/x.so npm test` is not in the allow list"],
    ])("refuses %s", async ([command, reason]) => {
      const verdict = await checkCommand(command!, strict);
      expect(verdict.allowed).toBe(false);
      expect(verdict.allowed === false && verdict.reason).toContain(reason);
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
      expect(await checkCommand(command, strict)).toEqual({ allowed: true });
    });

    test("an allow pattern that covers the assignments allows them; deny patterns match without them", async () => {
      const withCi = { allow: ["CI=1 npm test"], deny: ["curl *"] };
      expect(await checkCommand("CI=1 npm test", withCi)).toEqual({ allowed: true });
      expect(await checkCommand("env CI='1' npm test", withCi)).toEqual({ allowed: true });
      expect(await checkCommand("X=1 curl x", { deny: ["curl *"] })).toEqual({
        allowed: false,
        reason: "`curl x` matches the deny pattern `curl *`",
      });
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
});
