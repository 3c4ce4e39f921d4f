/**
 * The action's cold start: `node dist/index.js` (the bundle as built) run as the Actions runner
 * runs it, on a workflow_dispatch event with a one-turn text task. The figure is spawn to its first
 * log line (the secret masks, written before anything else); the whole step's wall time, CPU time
 * (the action's process and the run's own together) and peak RSS are reported beside it.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { startMockLlm } from "../../test/mock-llm/server.ts";
import { expectExit, measure } from "./measure.ts";
import type { BenchContext } from "./run-cli.ts";
import { DONE } from "./sessions.ts";
import { type BenchRow, rowOf } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace } from "./workspace.ts";

export async function actionStart(ctx: BenchContext, runs: number): Promise<BenchRow[]> {
  const first: number[] = [];
  const wall: number[] = [];
  const rss: number[] = [];
  const cpu: number[] = [];
  for (let run = -1; run < runs; run++) {
    const workspace = await tempWorkspace({ "task.yml": taskYaml({ wire: "anthropic" }) });
    const runner = await tempWorkspace();
    await writeFile(path.join(runner, "event.json"), "{}");
    for (const name of ["output", "summary"]) await writeFile(path.join(runner, name), "");
    const mock = await startMockLlm({ script: [DONE], recordBodies: false });
    try {
      const result = await measure(ctx.node, [ctx.bundle.action], {
        cwd: workspace,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          CI: "true",
          GITHUB_ACTIONS: "true",
          GITHUB_EVENT_NAME: "workflow_dispatch",
          GITHUB_EVENT_PATH: path.join(runner, "event.json"),
          GITHUB_OUTPUT: path.join(runner, "output"),
          GITHUB_STEP_SUMMARY: path.join(runner, "summary"),
          GITHUB_WORKSPACE: workspace,
          GITHUB_REPOSITORY: "octo-org/octo-repo",
          GITHUB_SERVER_URL: "https://github.com",
          GITHUB_RUN_ID: "1",
          RUNNER_TEMP: runner,
          ANTHROPIC_BASE_URL: mock.url,
          INPUT_TASK: "task.yml",
          "INPUT_ANTHROPIC-API-KEY": "sk-ant-bench-0123456789",
          INPUT_COMMENT: "false",
        },
      });
      expectExit(result, 0, "action cold start");
      await expectRun(workspace, 1, 0, "action cold start");
      if (result.firstOutputMs === undefined) throw new Error("action cold start: the action logged nothing");
      if (run < 0) continue;
      first.push(result.firstOutputMs);
      wall.push(result.wallMs);
      if (result.peakRssKb !== undefined) rss.push(result.peakRssKb / 1024);
      if (result.cpuMs !== undefined) cpu.push(result.cpuMs);
    } finally {
      await mock.close();
    }
  }
  const rows = [
    rowOf("action cold start", "to first log line ms", first),
    rowOf("action cold start", "one-turn step wall ms", wall),
  ];
  if (rss.length > 0) rows.push(rowOf("action cold start", "one-turn step peak RSS MB", rss));
  // The step's processes together (the action's and the run's own): steadier than wall time.
  if (cpu.length > 0) rows.push(rowOf("action cold start", "one-turn step CPU ms", cpu));
  return rows;
}
