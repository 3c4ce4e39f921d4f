import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { NO_CGROUP } from "./helpers/cgroup-available.ts";
import { runCli } from "./helpers/cli.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { startHttpMcp, type TestHttpMcp } from "./mcp/http-server.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";
import { gitRepo, tempDir } from "./output-helpers.ts";

/**
 * The git processes the end of a run starts, through the built CLI, seen by a `git` first in PATH
 * that notes each call (with the time) and runs the real one. When the last checkpoint's update
 * began with nothing but the runner's tools able to change the workspace and no tool ran after
 * it, the end takes that checkpoint's patch and runs no git. Otherwise it brings the private
 * index up to date and then: when that index is the one the last checkpoint wrote a tree of,
 * takes the checkpoint's patch (no other git); otherwise diffs the index itself, the list of
 * files and the patch at the same time, without writing its tree first.
 */
const REAL_GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
const TASK = "model: anthropic:claude-haiku-5-5\nprompt: Write the files.\ntools: [write]\nsandbox: off\n";
/** Long enough for the checkpoint after a turn (begun at once: the run's first) to be computed. */
const SLOW_MS = 1500;

interface GitCall {
  atMs: number;
  /** The subcommand and its arguments, after git's own `-c` options. */
  args: string[];
}

let mock: MockLlm | undefined;
let http: TestHttpMcp | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  await http?.close();
  http = undefined;
});

/** A folder with a `git` that appends its arguments to `log` and runs the real git. */
function loggingGit(): { dir: string; log: string } {
  const dir = tempDir("agent-run-git-log-");
  const log = path.join(dir, "calls");
  const script = path.join(dir, "git");
  writeFileSync(
    script,
    [
      "#!/bin/sh",
      // A call a record: \036 before it, \037 before each argument (which may hold a newline);
      // written in one go, as two gits may start at once.
      `r=$(printf '\\036%s' "$(date +%s%N)"; for a in "$@"; do printf '\\037%s' "$a"; done)`,
      `printf '%s' "$r" >> '${log}'`,
      `exec '${REAL_GIT}' "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(script, 0o755);
  writeFileSync(log, "");
  return { dir, log };
}

function gitCalls(log: string): GitCall[] {
  return readFileSync(log, "utf8")
    .split("\u001e")
    .filter((record) => record !== "")
    .map((record) => {
      const [time = "0", ...argv] = record.split("\u001f");
      let i = 0;
      while (argv[i] === "-c") i += 2;
      return { atMs: Number(BigInt(time) / 1_000_000n), args: argv.slice(i) };
    });
}

const bash = (command: string): MockReply => ({ toolCalls: [{ name: "bash", arguments: { command } }] });

const write = (file: string): MockReply => ({
  toolCalls: [{ name: "write", arguments: { path: file, content: `${file} by the agent\n` } }],
});

/** Runs the task in a fresh repository; answers the git calls made after the last request was answered. */
async function endGits(
  replies: MockReply[],
  task = TASK,
): Promise<{ calls: GitCall[]; patch: string; patchWrittenAt: number; exitedAt: number }> {
  let lastAnsweredAt = Number.POSITIVE_INFINITY;
  mock = await startMockLlm({
    script: (index) => {
      const reply = replies[Math.min(index, replies.length - 1)] as MockReply;
      if (index === replies.length - 1) lastAnsweredAt = Date.now() + (reply.firstByteDelayMs ?? 0);
      return reply;
    },
  });
  const repo = gitRepo({ "task.yml": task, "README.md": "start\n" });
  const git = loggingGit();
  const result = await runCli([path.join(repo, "task.yml")], {
    cwd: repo,
    env: { ...mockEnv(mock.url), PATH: `${git.dir}${path.delimiter}${process.env.PATH}` },
  });
  // The one warning a run with bash and `sandbox: off` has.
  expect(result.stderr.replace(/warning: bash and command hooks ran without a sandbox.*/, "")).not.toMatch(
    /warning/i,
  );
  expect(result.code).toBe(0);
  const exitedAt = Date.now();
  const calls = gitCalls(git.log);
  // The runner's git is the one of PATH: the log saw the snapshot at the start.
  expect(calls.some((call) => call.args[0] === "write-tree")).toBe(true);
  const patchFile = path.join(repo, ".agent-run", "patch.diff");
  return {
    calls: calls.filter((call) => call.atMs >= lastAnsweredAt),
    patch: readFileSync(patchFile, "utf8"),
    patchWrittenAt: statSync(patchFile).mtimeMs,
    exitedAt,
  };
}

describe("the end of a run's git processes", () => {
  test("nothing can have changed since the last checkpoint (no command ran): no git, the checkpoint's patch", async () => {
    const { calls, patch } = await endGits([write("a.txt"), { text: "Done.", firstByteDelayMs: SLOW_MS }]);
    expect(calls, JSON.stringify(calls)).toEqual([]);
    expect(patch).toContain("+a.txt by the agent");
  });

  test("a command's process alive at the last checkpoint: one add at the end, which finds what it wrote after", async () => {
    // Unsandboxed, the runner sees what a command left running only in the run's cgroup, where
    // there is one: either way, the end reads again.
    const late = "setsid sh -c 'sleep 1; echo late > late.txt' </dev/null >/dev/null 2>&1 & sleep 0.2";
    const { calls, patch } = await endGits(
      [
        { toolCalls: [{ name: "bash", arguments: { command: late } }] },
        { text: "Done.", firstByteDelayMs: SLOW_MS },
      ],
      TASK.replace("[write]", "[write, bash]"),
    );
    expect(
      calls.map((call) => call.args[0]),
      JSON.stringify(calls),
    ).toContain("add");
    expect(patch).toContain("+late");
  });

  test("changes after the last checkpoint: one add, then the index diffed, its tree not written", async () => {
    const replies = [write("a.txt"), { ...write("b.txt"), firstByteDelayMs: SLOW_MS }, { text: "Done." }];
    let { calls, patch } = await endGits(replies);
    // Turn 2's checkpoint is due CHECKPOINT_DELAY_MS after it; on a machine slow enough for the
    // last reply to take longer, it runs (an add of its own before the end's): once more then.
    for (
      let attempt = 1;
      attempt < 3 && calls.filter((call) => call.args[0] === "add").length > 1;
      attempt++
    ) {
      await mock?.close();
      ({ calls, patch } = await endGits(replies));
    }
    expect(calls[0]?.args[0], JSON.stringify(calls)).toBe("add");
    const rest = calls.slice(1).map((call) => call.args.filter((arg) => !arg.startsWith("--output")));
    expect(rest, JSON.stringify(calls)).toHaveLength(2);
    for (const args of rest) {
      expect(args[0]).toBe("diff");
      expect(args).toContain("--cached");
    }
    expect(rest.some((args) => args.includes("--raw"))).toBe(true);
    expect(rest.some((args) => args.includes("--binary"))).toBe(true);
    expect(patch).toContain("+a.txt by the agent");
    expect(patch).toContain("+b.txt by the agent");
  });
});

describe.skipIf(NO_CGROUP)("the end of an unsandboxed run's git processes, its commands in a cgroup", () => {
  const UNSANDBOXED = TASK.replace("[write]", "[write, bash]");

  test("the cgroup empty of the model's processes at the last checkpoint: no git, the checkpoint's patch", async () => {
    // A child in the background that is gone before the command ends, as a build's would be.
    const { calls, patch } = await endGits(
      [bash("(sleep 0.1; echo made > made.txt) & wait"), { text: "Done.", firstByteDelayMs: SLOW_MS }],
      UNSANDBOXED,
    );
    expect(calls, JSON.stringify(calls)).toEqual([]);
    expect(patch).toContain("+made");
  });
});

describe.skipIf(NO_SANDBOX)("the end of a sandboxed run's git processes", () => {
  const SANDBOXED = TASK.replace("[write]", "[write, bash]").replace("sandbox: off", "sandbox: required");

  test("every command's processes gone at the last checkpoint: no git, the checkpoint's patch", async () => {
    const { calls, patch } = await endGits(
      [bash("echo made > made.txt"), { text: "Done.", firstByteDelayMs: SLOW_MS }],
      SANDBOXED,
    );
    expect(calls, JSON.stringify(calls)).toEqual([]);
    expect(patch).toContain("+made");
  });

  test("a process left in the session at the last checkpoint: the end reads again and finds what it wrote after", async () => {
    const { calls, patch } = await endGits(
      [
        bash("setsid sh -c 'sleep 1; echo late > late.txt' </dev/null >/dev/null 2>&1 & sleep 0.2"),
        { text: "Done.", firstByteDelayMs: SLOW_MS },
      ],
      SANDBOXED,
    );
    expect(
      calls.map((call) => call.args[0]),
      JSON.stringify(calls),
    ).toContain("add");
    expect(patch).toContain("+late");
  });
});

/**
 * The end of a run whose MCP server over HTTP answers the end of its session LATE_MS late (its
 * cleanup runs first, the newest). When nothing of the model's can be alive at the end, nothing
 * changes the workspace any more: the patch is computed and the outputs written while the run lets
 * go of its resources, not after. Otherwise the end reads the workspace only once they are gone.
 * Either way the process exits only after.
 */
describe("the end of a run beside a resource slow to let go", () => {
  const LATE_MS = 800;
  const withServer = async (task: string) => {
    http = await startHttpMcp({ endSessionAfterMs: LATE_MS });
    return `${task}mcp_servers:\n  web:\n    url: ${http.url}\n`;
  };
  // Turn 1's checkpoint is taken at once, turn 2's not (the next one is due 2 s later): the end
  // reads the workspace with an add of its own.
  const quickTurns = (first: MockReply): MockReply[] => [first, write("b.txt"), { text: "Done." }];
  const lettingGo = () => {
    expect(http?.sessionEnds).toHaveLength(1);
    const answeredAt = http?.sessionEnds[0]?.answeredAt;
    expect(answeredAt).toBeTypeOf("number");
    return answeredAt as number;
  };

  test("nothing but the runner's tools could change files: the patch and the outputs come while it lets go", async () => {
    const run = await endGits(quickTurns(write("a.txt")), await withServer(TASK));
    const answeredAt = lettingGo();
    const add = run.calls.find((call) => call.args[0] === "add");
    expect(add, JSON.stringify(run.calls)).toBeDefined();
    expect(add?.atMs).toBeLessThan(answeredAt);
    expect(run.patchWrittenAt).toBeLessThan(answeredAt);
    expect(run.exitedAt).toBeGreaterThanOrEqual(answeredAt);
    expect(run.patch).toContain("+a.txt by the agent");
    expect(run.patch).toContain("+b.txt by the agent");
  });

  describe.skipIf(NO_SANDBOX)("sandboxed", () => {
    const SANDBOXED = TASK.replace("[write]", "[write, bash]").replace("sandbox: off", "sandbox: required");

    test("every command's processes gone: the patch and the outputs come while it lets go", async () => {
      const run = await endGits(quickTurns(bash("echo made > made.txt")), await withServer(SANDBOXED));
      const answeredAt = lettingGo();
      expect(run.calls.find((call) => call.args[0] === "add")?.atMs).toBeLessThan(answeredAt);
      expect(run.patchWrittenAt).toBeLessThan(answeredAt);
      expect(run.exitedAt).toBeGreaterThanOrEqual(answeredAt);
      expect(run.patch).toContain("+made");
      expect(run.patch).toContain("+b.txt by the agent");
    });

    test("a process left in the session: the end reads the workspace once everything is gone", async () => {
      // It writes while the server lets go, and is killed with the sandbox after. The command
      // waits a moment: its group is killed when it ends, so setsid must have run by then.
      const late =
        "setsid sh -c 'sleep 0.4; echo late > late.txt; sleep 30' </dev/null >/dev/null 2>&1 & sleep 0.2";
      const run = await endGits(quickTurns(bash(late)), await withServer(SANDBOXED));
      const answeredAt = lettingGo();
      const add = run.calls.find((call) => call.args[0] === "add");
      expect(add, JSON.stringify(run.calls)).toBeDefined();
      expect(add?.atMs, JSON.stringify(run.calls)).toBeGreaterThanOrEqual(answeredAt);
      expect(run.patchWrittenAt).toBeGreaterThanOrEqual(answeredAt);
      expect(run.patch).toContain("+late");
      expect(run.patch).toContain("+b.txt by the agent");
    });
  });
});
