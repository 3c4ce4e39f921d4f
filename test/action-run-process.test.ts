/**
 * The built action runs the task in a process of its own: its environment holds none of the
 * secrets the action's own process was started with, and a cancelled job's signals still reach the
 * run, as GitHub sends them (SIGINT, then SIGTERM) or to the whole process group, so its outputs
 * are written and the exit code is the interrupted one.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type Interrupt, runActionBundle } from "./fake-github/actions-runner.ts";
import { BUILT_ACTION } from "./helpers/built.ts";
import { canary } from "./helpers/canaries.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

const API_KEY = canary("input-anthropic-key");
const TOKEN = canary("input-github-token");
const RUNTIME = canary("actions-runtime-token");

let llm: MockLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

/** The pids whose parent is `pid`, with their command lines. */
async function childrenOf(pid: number): Promise<{ pid: number; cmdline: string[] }[]> {
  const out: { pid: number; cmdline: string[] }[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid !== pid) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    out.push({ pid: Number(name), cmdline: cmdline.split("\0").filter(Boolean) });
  }
  return out;
}

async function stalledRun(interrupt: Interrupt) {
  // The model never answers in time: the run waits on it until the signal ends it.
  llm = await startMockLlm({ script: [{ text: "late", firstByteDelayMs: 30_000 }] });
  const workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-run-process-"));
  await writeFile(
    path.join(workspace, "task.yml"),
    "name: t\nmodel: anthropic:claude-sonnet-4-6\nprompt: Wait.\ntools: [read]\n",
  );
  const run = await runActionBundle({
    main: BUILT_ACTION,
    eventName: "workflow_dispatch",
    payload: {},
    workspace,
    inputs: { task: "task.yml", "anthropic-api-key": API_KEY, "github-token": TOKEN, comment: "false" },
    env: { ANTHROPIC_BASE_URL: llm.url, ACTIONS_RUNTIME_TOKEN: RUNTIME },
    interrupt,
  });
  return { run, workspace };
}

describe("the run's own process", { timeout: 60_000 }, () => {
  test("holds no secret in its environment; SIGINT then SIGTERM end it as interrupted (130), outputs written", async () => {
    let seen: { runEnv: string; actionEnv: string; cmdline: string[] } | undefined;
    const { run, workspace } = await stalledRun({
      signal: "SIGINT",
      whenStdoutHas: "::group::turn 1",
      second: { signal: "SIGTERM", afterMs: 300 },
      before: async (pid) => {
        const [child] = (await childrenOf(pid)).filter((c) => c.cmdline.includes("--agent-run-child"));
        if (!child) return;
        seen = {
          runEnv: await readFile(`/proc/${child.pid}/environ`, "utf8"),
          actionEnv: await readFile(`/proc/${pid}/environ`, "utf8"),
          cmdline: child.cmdline,
        };
      },
    });
    expect(seen, "a child process running the task").toBeDefined();
    expect(seen?.cmdline.slice(1)).toEqual([BUILT_ACTION, "--agent-run-child"]);
    // The Actions runner put the secrets into the action's environment; none is in the run's.
    for (const secret of [API_KEY, TOKEN, RUNTIME]) expect(seen?.actionEnv).toContain(secret);
    for (const secret of [API_KEY, TOKEN, RUNTIME]) expect(seen?.runEnv).not.toContain(secret);
    expect(seen?.runEnv).not.toMatch(/(^|\0)(INPUT_|ACTIONS_|ANTHROPIC_API_KEY=)/);
    expect(seen?.runEnv).toContain("GITHUB_ACTIONS=true");

    expect(run.exitCode, run.stderr).toBe(130);
    expect(run.outputs).toMatchObject({ conclusion: "interrupted", "exit-code": "130" });
    expect(existsSync(path.join(workspace, ".agent-run", "usage.json"))).toBe(true);
    const events = (await readFile(path.join(workspace, ".agent-run", "events.jsonl"), "utf8"))
      .trim()
      .split("\n");
    expect(JSON.parse(events.at(-1) ?? "{}")).toMatchObject({ type: "run_end", conclusion: "interrupted" });
  });

  test("a second signal that lands while the action writes out the run's end: still the run's exit code", async () => {
    // GitHub's SIGTERM follows its SIGINT 7.5 s later; a run that ended meanwhile may be exiting
    // then. The action died by the signal there (143, seen as 1 here), not with the run's 130.
    const { run, workspace } = await stalledRun({
      signal: "SIGINT",
      whenStdoutHas: "::group::turn 1",
      second: { signal: "SIGTERM", whenStdoutHas: "::error title=agent-run interrupted::" },
    });
    expect(run.exitCode, run.stdout.slice(-2000) + run.stderr).toBe(130);
    expect(run.outputs).toMatchObject({ conclusion: "interrupted", "exit-code": "130" });
    expect(existsSync(path.join(workspace, ".agent-run", "summary.md"))).toBe(true);
  });

  test("signals to the whole process group, twice (the run process gets each from both) still end it cleanly", async () => {
    const { run, workspace } = await stalledRun({
      signal: "SIGTERM",
      whenStdoutHas: "::group::turn 1",
      group: true,
    });
    expect(run.exitCode, run.stderr).toBe(143);
    expect(run.outputs).toMatchObject({ conclusion: "interrupted", "exit-code": "143" });
    expect(existsSync(path.join(workspace, ".agent-run", "summary.md"))).toBe(true);
    expect(run.stepSummary).toContain("interrupted");
  });
});
