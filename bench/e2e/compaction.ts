/**
 * Long session on a small window (issue 14): 80 turns, each reading a different 20 KB file, every
 * tenth also editing one, on a model whose window is 32k tokens (the mock counts the tokens its
 * own way and refuses what does not fit, as the real APIs do). Three runs of the same script:
 * agent-run (the bundled CLI) compacting; agent-run with `compaction: false` on a mock with no
 * window (what the session sends whole); and pi's algorithm (pi-baseline.ts) on the library's
 * Agent with the same tools. Reported: that each completes with every edit in the patch, the bytes
 * sent to the model in all (failed and summary requests included), the time spent compacting,
 * and how far the runner's estimate after a compaction was from the mock's count.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Agent } from "../../src/core/agent.ts";
import { createProviderRouter } from "../../src/providers/index.ts";
import { createGiveUpTool } from "../../src/run/give-up-tool.ts";
import { defaultSystemPrompt } from "../../src/run/system-prompt.ts";
import { createEditTool, createReadTool } from "../../src/tools/index.ts";
import {
  editedFiles,
  isSummaryRequest,
  type LongSession,
  longSessionScript,
  marker,
  writeSessionFiles,
} from "../../test/helpers/long-session.ts";
import { type RecordedRequest, startMockLlm } from "../../test/mock-llm/server.ts";
import { expectExit, measure } from "./measure.ts";
import { piLikeCompaction } from "./pi-baseline.ts";
import type { BenchContext } from "./run-cli.ts";
import { type BenchRow, fmt } from "./stats.ts";
import { cliEnv, tempWorkspace } from "./workspace.ts";

const WINDOW = 32_000;
const SESSION: LongSession = { turns: 80, editEvery: 10 };

interface Outcome {
  requests: RecordedRequest[];
  wallMs: number;
  compactingMs: number;
  compactions: number;
  /** Median |estimate − count| / count of the request sent after each compaction, in %. */
  estimateErrorPct?: number;
}

function task(compaction: boolean): string {
  return [
    "name: long-session",
    `model: { provider: anthropic, id: claude-haiku-5-5, context_window: ${WINDOW} }`,
    "prompt: Read every file in docs/ and mark the ones the script edits.",
    "tools: [read, edit]",
    "limits: { max_turns: 200 }",
    ...(compaction ? [] : ["compaction: false"]),
    "",
  ].join("\n");
}

async function expectEdits(workspace: string, what: string): Promise<void> {
  for (const i of editedFiles(SESSION)) {
    const text = await readFile(path.join(workspace, `docs/f${String(i).padStart(3, "0")}.txt`), "utf8");
    if (!text.startsWith(marker(i).after)) throw new Error(`${what}: the edit of file ${i} is missing`);
  }
}

/** agent-run, the bundled CLI; with `compaction`, against a mock that enforces the 32k window. */
async function runAgentRun(ctx: BenchContext, compaction: boolean): Promise<Outcome> {
  const what = `compaction: agent-run ${compaction ? "compacting" : "without compaction"}`;
  const workspace = await tempWorkspace({ "task.yml": task(compaction) });
  await writeSessionFiles(workspace, SESSION);
  const mock = await startMockLlm({
    script: longSessionScript(SESSION),
    ...(compaction && { contextWindow: WINDOW }),
  });
  try {
    const result = await measure(ctx.node, [ctx.bundle.cli, path.join(workspace, "task.yml")], {
      cwd: workspace,
      env: cliEnv(mock.url),
    });
    expectExit(result, 0, what);
    await expectEdits(workspace, what);
    const patch = await readFile(path.join(workspace, ".agent-run", "patch.diff"), "utf8");
    for (const i of editedFiles(SESSION)) {
      if (!patch.includes(`+${marker(i).after}`))
        throw new Error(`${what}: the edit of file ${i} is not in the patch`);
    }
    const events = (await readFile(path.join(workspace, ".agent-run", "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; durationMs?: number; tokensAfter?: number });
    const compactions = events.filter((e) => e.type === "compaction");
    // The request after each compaction is the one its `tokensAfter` estimated: the model
    // request of the next turn (summaries and refused requests are not turns).
    const turns = mock.requests.filter((r) => !r.overflowed && !isSummaryRequest(r));
    const errors: number[] = [];
    for (const [n, c] of compactions.entries()) {
      const request = turns[turnAfter(events, n)];
      if (request?.promptTokens && c.tokensAfter)
        errors.push((Math.abs(c.tokensAfter - request.promptTokens) / request.promptTokens) * 100);
    }
    return {
      requests: mock.requests,
      wallMs: result.wallMs,
      compactingMs: compactions.reduce((sum, c) => sum + (c.durationMs ?? 0), 0),
      compactions: compactions.length,
      ...(errors.length > 0 && { estimateErrorPct: median(errors) }),
    };
  } finally {
    await mock.close();
  }
}

/** The index of the turn whose request was shaped by compaction `n` (it comes before that turn's start). */
function turnAfter(events: Array<{ type: string }>, n: number): number {
  let requests = 0;
  let seen = -1;
  for (const event of events) {
    if (event.type === "compaction") seen++;
    if (event.type === "turn_start") {
      if (seen === n) return requests;
      requests++;
    }
  }
  return requests;
}

/** pi's algorithm on the library's Agent, with the same tools and system prompt, same mock. */
async function runPiBaseline(): Promise<Outcome> {
  const workspace = await tempWorkspace({});
  await writeSessionFiles(workspace, SESSION);
  const mock = await startMockLlm({ script: longSessionScript(SESSION), contextWindow: WINDOW });
  try {
    const model = { provider: "anthropic", id: "claude-haiku-5-5", contextWindow: WINDOW };
    const stream = createProviderRouter({ env: cliEnv(mock.url), models: [model] });
    const pi = piLikeCompaction(stream);
    const tools = [createReadTool(workspace), createEditTool(workspace), createGiveUpTool()];
    const agent = new Agent({
      stream,
      model,
      tools,
      systemPrompt: defaultSystemPrompt(
        workspace,
        tools.map((t) => t.name),
      ),
      transformContext: pi.transform,
    });
    const started = performance.now();
    const outcome = await agent.prompt("Read every file in docs/ and mark the ones the script edits.");
    if (outcome.reason !== "stop")
      throw new Error(`compaction: pi's algorithm ended with ${outcome.reason}: ${outcome.message ?? ""}`);
    await expectEdits(workspace, "compaction: pi's algorithm");
    return {
      requests: mock.requests,
      wallMs: performance.now() - started,
      compactingMs: pi.compactingMs(),
      compactions: mock.requests.filter(isSummaryRequest).length,
    };
  } finally {
    await mock.close();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const mb = (requests: RecordedRequest[]) => requests.reduce((sum, r) => sum + r.bytes, 0) / 1024 / 1024;

export async function compaction(ctx: BenchContext): Promise<BenchRow[]> {
  const ours = await runAgentRun(ctx, true);
  const whole = await runAgentRun(ctx, false);
  const pi = await runPiBaseline();
  const scenario = `long session, ${SESSION.turns} × read 20 KB, 32k window`;
  const describe = (o: Outcome) =>
    `${o.requests.length} requests (${o.requests.filter((r) => r.overflowed).length} refused as too long); ${fmt(o.wallMs / 1000, 1)} s`;
  const ratio = mb(ours.requests) / mb(pi.requests);
  return [
    {
      scenario,
      measure: "agent-run compacting: MB sent",
      value: fmt(mb(ours.requests), 1),
      spread: `${describe(ours)}; every edit in the patch`,
      target: `≤ 50% of pi's: ${fmt(ratio * 100)}% ${ratio <= 0.5 ? "✓" : "✗"}`,
    },
    {
      scenario,
      measure: "agent-run compacting: ms compacting",
      value: fmt(ours.compactingMs),
      spread: `${ours.compactions} compactions; estimate after one off by ${fmt(ours.estimateErrorPct ?? Number.NaN)}% (median)`,
      target: "",
    },
    {
      scenario,
      measure: "agent-run without compaction: MB sent",
      value: fmt(mb(whole.requests), 1),
      spread: `${describe(whole)}; a mock with no window`,
      target: "",
    },
    {
      scenario,
      measure: "pi's algorithm: MB sent",
      value: fmt(mb(pi.requests), 1),
      spread: `${describe(pi)}; ${pi.compactions} summaries, ${fmt(pi.compactingMs)} ms compacting`,
      target: "",
    },
  ];
}
