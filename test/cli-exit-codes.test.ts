import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { VERSION } from "../src/version.ts";
import { copyExample, ROOT, readJson, runCli, startCli, tempWorkspace, waitGone } from "./helpers/cli.ts";
import { until } from "./helpers/patch-run.ts";

const TASK = (body: string) => `name: t\nmodel: anthropic:claude-sonnet-4-5\nprompt: do it\n${body}`;

async function outputsOf(dir: string) {
  const out = path.join(dir, ".agent-run");
  return {
    usage: await readJson(path.join(out, "usage.json")),
    summary: await readFile(path.join(out, "summary.md"), "utf8"),
    patch: await readFile(path.join(out, "patch.diff"), "utf8"),
    events: (await readFile(path.join(out, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string }),
  };
}

describe("the CLI as a child process", () => {
  test("--version prints the package version", async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(VERSION).toBe(pkg.version);
    const result = await runCli(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  test("--help shows usage and examples", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("agent-run validate <task.yml>");
    expect(result.stdout).toContain("Examples:");
  });

  test.for([
    [["--bogus"], "unknown option '--bogus'"],
    [[], "missing the task file"],
    [["a.yml", "--max-turns", "zero"], "--max-turns expects a positive whole number, got 'zero'"],
    [["a.yml", "--var", "novalue"], "--var expects K=V, got 'novalue'"],
    [["a.yml", "--timeout", "soon"], "--timeout expects a duration like 90s or 20m, got 'soon'"],
  ] as const)("usage error %j exits 2", async ([args, message]) => {
    const result = await runCli([...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  test("a bad spec exits 2 with a positioned error and writes nothing", async () => {
    const dir = await tempWorkspace({ "task.yml": TASK("tools: [bsh]\n") });
    const result = await runCli([path.join(dir, "task.yml")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("task.yml:4:9");
    expect(result.stderr).toContain("did you mean 'bash'?");
    expect(existsSync(path.join(dir, ".agent-run"))).toBe(false);
  });

  test("a missing API key exits 2 before anything runs, naming the variable", async () => {
    const dir = await tempWorkspace({ "task.yml": TASK("") });
    const result = await runCli([path.join(dir, "task.yml")], { env: { ANTHROPIC_API_KEY: "" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("ANTHROPIC_API_KEY");
    expect(existsSync(path.join(dir, ".agent-run"))).toBe(false);
  });

  test("a workspace that does not exist exits 2 and creates nothing", async () => {
    const dir = await tempWorkspace({ "task.yml": TASK("workdir: nowhere\n"), "s.yml": "turns: []\n" });
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("nowhere is not a directory");
    expect(existsSync(path.join(dir, "nowhere"))).toBe(false);
  });

  test("a malformed replay file exits 2 with its position", async () => {
    const dir = await tempWorkspace({ "task.yml": TASK(""), "s.yml": "turns:\n  - txt: hello\n" });
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/s\.yml:2:5/);
  });

  test("0: the lint-fix example fixes the lint errors, with ESLint really run by the hooks", async () => {
    const dir = await copyExample("lint-fix");
    const pristine = await mkdtemp(path.join(os.tmpdir(), "agent-run-pristine-"));
    await cp(dir, pristine, { recursive: true });
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "session.yml")]);
    expect(result.stderr).toContain("success · 6 turns");
    expect(result.code).toBe(0);
    const lint = execFileSync("npm", ["run", "-s", "lint"], {
      cwd: dir,
      env: { ...process.env, PATH: `${path.join(ROOT, "node_modules", ".bin")}:${process.env.PATH}` },
    });
    expect(lint.toString()).toBe("");
    const { usage, summary, patch, events } = await outputsOf(dir);
    expect(usage).toMatchObject({ conclusion: "success", turns: 6, files_changed: 2 });
    expect(usage.tool_calls).toMatchObject({ total: 7, by_tool: { bash: { calls: 3, blocked: 1 } } });
    // `const TAX_RATE` comes from the after-edit `eslint --fix` hook, not from the model.
    expect(patch).toContain("+const TAX_RATE = 0.2;");
    expect(summary).toContain("Blocked calls (1)");
    expect(events[0]!.type).toBe("run_start");
    expect(events.at(-1)!.type).toBe("run_end");
    await writeFile(path.join(pristine, "fix.patch"), patch);
    execFileSync("git", ["apply", "--check", "fix.patch"], { cwd: pristine });
  });

  test("1: a before_stop check still failing ends as failure", async () => {
    const dir = await tempWorkspace({
      "task.yml": TASK(
        "hooks:\n  before_stop:\n    - run: echo 'still broken'; exit 1\n      max_attempts: 2\n",
      ),
      "s.yml": "turns:\n  - text: done\n  - text: really done\n  - text: never\n",
    });
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    expect(result.code).toBe(1);
    const { usage, summary } = await outputsOf(dir);
    expect(usage.conclusion).toBe("failure");
    expect(usage.turns).toBe(2);
    expect(summary).toContain("still failing after 2 attempts");
    // The failing check's own output is in the summary, collapsed.
    expect(summary).toContain("<details><summary>Output (end)</summary>\n\n  ```text\n  still broken\n  ```");
  });

  test("1: the model gives up, with its reason in the summary", async () => {
    const dir = await tempWorkspace({
      "task.yml": TASK("tools: [read]\n"),
      "s.yml":
        "turns:\n  - tool_calls: [{ name: give_up, arguments: { reason: 'the fix needs a database migration I may not run' } }]\n  - text: never\n",
    });
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    expect(result.code).toBe(1);
    const { usage, summary } = await outputsOf(dir);
    expect(usage).toMatchObject({ conclusion: "failure", turns: 1 });
    expect(summary).toContain("the model gave up: the fix needs a database migration I may not run");
  });

  test("3: --max-turns stops the run as a limit", async () => {
    const call = "  - tool_calls: [{ name: ls, arguments: {} }]\n";
    const dir = await tempWorkspace({
      "task.yml": TASK("tools: [ls]\n"),
      "s.yml": `turns:\n${call.repeat(5)}`,
    });
    const result = await runCli([
      path.join(dir, "task.yml"),
      "--replay",
      path.join(dir, "s.yml"),
      "--max-turns",
      "2",
    ]);
    expect(result.code).toBe(3);
    const { usage } = await outputsOf(dir);
    expect(usage).toMatchObject({ conclusion: "limit", turns: 2 });
  });

  test("3: --timeout kills a running tool and stops the run as a limit", async () => {
    const dir = await tempWorkspace({
      "task.yml": TASK("tools: [bash]\n"),
      "s.yml": "turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'sleep 30' } }]\n",
    });
    const started = Date.now();
    const result = await runCli([
      path.join(dir, "task.yml"),
      "--replay",
      path.join(dir, "s.yml"),
      "--timeout",
      "1s",
    ]);
    expect(result.code).toBe(3);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect((await outputsOf(dir)).usage.conclusion).toBe("limit");
  });

  test("4: a provider failure is an infrastructure error, outputs written", async () => {
    const dir = await tempWorkspace({
      "task.yml": TASK(""),
      "s.yml": "turns:\n  - error: { kind: transient, status: 529, message: overloaded }\n",
    });
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    expect(result.code).toBe(4);
    const { usage, summary } = await outputsOf(dir);
    expect(usage.conclusion).toBe("error");
    expect(summary).toContain("overloaded");
  });

  test.for([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)(
    "%s mid-tool: the tool's process group dies, outputs are written, exit %i",
    async ([signal, code]) => {
      const dir = await tempWorkspace({
        // Unsandboxed: $! must be a host PID to be checked from here (sandbox-attacks.test.ts covers the sandbox).
        "task.yml": TASK("tools: [bash]\nsandbox: off\n"),
        "s.yml":
          "turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'echo changed > new.txt; sleep 300 & echo $! > bg.pid; wait' } }]\n",
      });
      const { child, done } = startCli([
        path.join(dir, "task.yml"),
        "--replay",
        path.join(dir, "s.yml"),
        "--json",
      ]);
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (existsSync(path.join(dir, "bg.pid"))) {
            clearInterval(poll);
            resolve();
          }
        }, 25);
      });
      const sent = Date.now();
      child.kill(signal);
      const result = await done;
      expect(result.code).toBe(code);
      expect(Date.now() - sent).toBeLessThan(5000);
      const pid = Number((await readFile(path.join(dir, "bg.pid"), "utf8")).trim());
      expect(await waitGone(pid)).toBe(true);
      const { usage, patch, events } = await outputsOf(dir);
      expect(usage.conclusion).toBe("interrupted");
      expect(patch).toContain("+++ b/new.txt");
      expect(events.at(-1)!.type).toBe("run_end");
      // --json: stdout is nothing but events.
      for (const line of result.stdout.trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
    },
  );

  test("signals from the agent's end on, its work done: the run still ends 0", async () => {
    const dir = await tempWorkspace({ "task.yml": TASK(""), "s.yml": "turns:\n  - text: done\n" });
    const { child, done } = startCli([
      path.join(dir, "task.yml"),
      "--replay",
      path.join(dir, "s.yml"),
      "--json",
    ]);
    let gone = false;
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => {
        gone = true;
        resolve({ code, signal });
      }),
    );
    let printed = "";
    await new Promise<void>((resolve) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        printed += chunk.toString();
        if (printed.includes('"type":"agent_end"')) resolve();
      });
    });
    // One a millisecond until the process is gone, as CI's and a user's repeated stops come: the
    // first lands in the finish phase, later ones while the process ends.
    while (!gone) {
      try {
        child.kill("SIGTERM");
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(await ended).toEqual({ code: 0, signal: null });
    // Not vacuous: a signal reached the run before it ended.
    expect((await done).stderr).toContain("SIGTERM received");
    expect((await outputsOf(dir)).usage.conclusion).toBe("success");
  });

  test("a second signal as the run's end is printed (CI's SIGTERM after its SIGINT): still 130", async () => {
    const dir = await tempWorkspace({
      "task.yml": TASK("tools: [bash]\nsandbox: off\n"),
      "s.yml":
        "turns:\n  - tool_calls: [{ name: bash, arguments: { command: 'echo changed > new.txt; touch started; sleep 300' } }]\n",
    });
    const { child, done } = startCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
    await until(() => existsSync(path.join(dir, "started")));
    child.kill("SIGINT");
    // The last lines: the one-line summary, then where the outputs are; the process ends after.
    let printed = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes("outputs: ")) child.kill("SIGTERM");
    });
    const result = await done;
    expect(result.code, result.stderr).toBe(130);
    expect((await outputsOf(dir)).usage.conclusion).toBe("interrupted");
  });
});
