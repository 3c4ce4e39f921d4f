/** Runs the bundled CLI (or the bare loop) once against a fresh mock LLM and measures it. */
import path from "node:path";
import { type MockScript, type RecordedRequest, startMockLlm } from "../../test/mock-llm/server.ts";
import type { Bundle } from "./bundle.ts";
import { expectExit, type Measured, measure } from "./measure.ts";
import { cliEnv, type Wire } from "./workspace.ts";

/** What every scenario gets: the bundles under test and the Node that runs them (Node 24). */
export interface BenchContext {
  bundle: Bundle;
  node: string;
}

export interface CliRun extends Measured {
  /** Every request the mock received, bodies included only with `recordBodies`. */
  requests: RecordedRequest[];
}

/**
 * `agent-run task.yml` (the bundle) in `workspace` against a mock that plays `script`. Throws
 * unless it exits 0: the scenario broke, which must fail the bench.
 */
export async function runCliOnce(
  ctx: BenchContext,
  workspace: string,
  script: MockScript,
  options: { recordBodies?: boolean; what: string },
): Promise<CliRun> {
  const mock = await startMockLlm({ script, recordBodies: options.recordBodies ?? false });
  try {
    const result = await measure(ctx.node, [ctx.bundle.cli, path.join(workspace, "task.yml")], {
      cwd: workspace,
      env: cliEnv(mock.url),
    });
    expectExit(result, 0, options.what);
    return { ...result, requests: mock.requests };
  } finally {
    await mock.close();
  }
}

const BARE_LOOP = path.join(import.meta.dirname, "bare-loop.ts");

/**
 * The bare loop (bare-loop.ts) in `workspace` against a mock playing `script`; throws unless it
 * exits 0. With `keepRequests`, the mock's requests (headers only) come back too.
 */
export async function runBareOnce(
  ctx: BenchContext,
  wire: Wire,
  workspace: string,
  script: MockScript,
  what: string,
  options: { keepRequests?: boolean } = {},
): Promise<Measured & { requests?: RecordedRequest[] }> {
  const mock = await startMockLlm({ script, recordBodies: false });
  try {
    const result = await measure(ctx.node, [BARE_LOOP, wire, mock.url, workspace], { cwd: workspace });
    expectExit(result, 0, what);
    return options.keepRequests ? { ...result, requests: mock.requests } : result;
  } finally {
    await mock.close();
  }
}
