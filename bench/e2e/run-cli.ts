/** Runs the bundled CLI (or the bare loop) once against a fresh mock LLM and measures it. */
import path from "node:path";
import {
  type MockReply,
  type MockScript,
  type RecordedRequest,
  startMockLlm,
} from "../../test/mock-llm/server.ts";
import type { Bundle } from "./bundle.ts";
import { expectExit, type Measured, measure } from "./measure.ts";
import { cliEnv, type Wire } from "./workspace.ts";

/** What every scenario gets: the bundles under test and the Node that runs them (Node 24). */
export interface BenchContext {
  bundle: Bundle;
  node: string;
}

/** When the mock received each request: what "start → first request" and "last request → exit" need. */
export interface RequestTimes {
  /** Spawn to the mock receiving the first request (its body read), ms. */
  firstRequestMs: number;
  /** The mock receiving the last request to the child's exit, ms. */
  lastRequestToExitMs: number;
  /** When the mock received each request, on this process's `performance.now()` clock. */
  requestsAt: number[];
}

export interface CliRun extends Measured, RequestTimes {
  /** Every request the mock received, bodies included only with `recordBodies`. */
  requests: RecordedRequest[];
}

/** `script` that also notes, on this process's clock, when each request came in. */
function timed(script: MockScript): { script: MockScript; at: number[] } {
  const at: number[] = [];
  const play: MockScript = (index, request) => {
    at.push(performance.now());
    return typeof script === "function"
      ? script(index, request)
      : (script[Math.min(index, script.length - 1)] as MockReply);
  };
  return { script: play, at };
}

function requestTimes(result: Measured, at: number[]): RequestTimes {
  const first = at[0] ?? Number.NaN;
  const last = at.at(-1) ?? Number.NaN;
  return {
    firstRequestMs: first - result.startedAt,
    lastRequestToExitMs: result.exitedAt - last,
    requestsAt: at,
  };
}

/**
 * `agent-run task.yml` (the bundle) in `workspace` against a mock that plays `script`. Throws
 * unless it exits 0: the scenario broke, which must fail the bench.
 */
export async function runCliOnce(
  ctx: BenchContext,
  workspace: string,
  script: MockScript,
  options: { recordBodies?: boolean; what: string; env?: NodeJS.ProcessEnv },
): Promise<CliRun> {
  const play = timed(script);
  const mock = await startMockLlm({ script: play.script, recordBodies: options.recordBodies ?? false });
  try {
    const result = await measure(ctx.node, [ctx.bundle.cli, path.join(workspace, "task.yml")], {
      cwd: workspace,
      env: { ...cliEnv(mock.url), ...options.env },
    });
    expectExit(result, 0, options.what);
    return { ...result, ...requestTimes(result, play.at), requests: mock.requests };
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
): Promise<Measured & RequestTimes & { requests?: RecordedRequest[] }> {
  const play = timed(script);
  const mock = await startMockLlm({ script: play.script, recordBodies: false });
  try {
    const result = await measure(ctx.node, [BARE_LOOP, wire, mock.url, workspace], { cwd: workspace });
    expectExit(result, 0, what);
    const timedResult = { ...result, ...requestTimes(result, play.at) };
    return options.keepRequests ? { ...timedResult, requests: mock.requests } : timedResult;
  } finally {
    await mock.close();
  }
}
