/**
 * The sandbox session's start (issue 18): bubblewrap and the exec server inside it, from the first
 * file call to its answer (one `lookup`), as a sandboxed run pays it once on its first tool call.
 * Also the bubblewrap probe (`detectSandbox`'s `bwrap … true`) and `prepareSandbox`. Measured
 * in this process from the sources (the same code as the bundle's), each run with a fresh probe.
 *
 * Then what a user sees of it through the bundled CLI: the first tool turn (a `read`) from its
 * reply's arrival to the next request, when the model answers at once (the session starts as the
 * tool call streams: its start is in the turn) and when it takes THINK_MS (the session starts
 * while it thinks, src/run/prestart.ts), beside the same run with `sandbox: off`.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createSandboxSession, detectSandbox, prepareSandbox, sandboxEnv } from "../../src/sandbox/index.ts";
import { runProcess } from "../../src/system/process.ts";
import { type BenchContext, runCliOnce } from "./run-cli.ts";
import { DONE, markerFile } from "./sessions.ts";
import { type BenchRow, rowOf } from "./stats.ts";
import { expectRun, taskYaml, tempWorkspace } from "./workspace.ts";

/** The model's time before its first reply in the "thinking" runs: 500 ms. */
const THINK_MS = 500;

export async function sessionStart(ctx: BenchContext, runs: number): Promise<BenchRow[]> {
  const probe: number[] = [];
  const prepare: number[] = [];
  const start: number[] = [];
  const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-bench-session-"));
  for (let run = -1; run < runs; run++) {
    // A PATH of its own per run: the probe's answer is cached per binary and PATH.
    const env = { ...process.env, PATH: `${process.env.PATH}${path.delimiter}/nonexistent-${run}` };
    let t = performance.now();
    const support = await detectSandbox({ env });
    const probeMs = performance.now() - t;
    if (!support.available)
      return [
        {
          scenario: "sandbox session",
          measure: `skipped: ${support.reason}`,
          value: "",
          spread: "",
          target: "",
        },
      ];
    t = performance.now();
    const prepared = await prepareSandbox({
      bwrapPath: support.bwrapPath,
      workspace: dir,
      protectedGlobs: [],
      env,
    });
    const prepareMs = performance.now() - t;
    const session = createSandboxSession({
      policy: prepared.policy,
      serverEnv: sandboxEnv(env, { home: prepared.policy.home }),
      fallback: runProcess,
      onDown: (reason) => {
        throw new Error(`sandbox session: down: ${reason}`);
      },
    });
    t = performance.now();
    await session.fileOperations(dir).lookup(".");
    const startMs = performance.now() - t;
    await session.dispose();
    await prepared.dispose();
    if (run < 0) continue;
    probe.push(probeMs);
    prepare.push(prepareMs);
    start.push(startMs);
  }
  const rows = [
    rowOf("sandbox session", "bubblewrap probe ms", probe),
    rowOf("sandbox session", "prepareSandbox ms", prepare),
    rowOf("sandbox session", "session start ms (bwrap + exec server ready)", start),
  ];
  for (const thinkMs of [0, THINK_MS]) {
    for (const sandbox of ["auto", "off"] as const) {
      const turn: number[] = [];
      // Half as many: each is a run of the CLI.
      for (let run = -1; run < Math.ceil(runs / 2); run++) {
        const got = await firstToolTurn(ctx, thinkMs, sandbox);
        if (run >= 0) turn.push(got);
      }
      const model = thinkMs === 0 ? "a model answering at once" : `a model thinking ${thinkMs} ms`;
      rows.push(rowOf("sandbox session", `first tool turn ms, ${model}, sandbox ${sandbox}`, turn));
    }
  }
  return rows;
}

/**
 * One run of the bundle whose first reply (a `read`) comes `thinkMs` after its request: the time
 * from that reply's first byte to the next request (the tool's turn as a user waits for it).
 */
async function firstToolTurn(ctx: BenchContext, thinkMs: number, sandbox: "auto" | "off"): Promise<number> {
  const workspace = await tempWorkspace({
    "task.yml": taskYaml({ wire: "openai", sandbox }),
    "main.txt": markerFile(1),
  });
  const { requestsAt: at } = await runCliOnce(
    ctx,
    workspace,
    (index) =>
      index === 0
        ? { toolCalls: [{ name: "read", arguments: { path: "main.txt" } }], firstByteDelayMs: thinkMs }
        : DONE,
    { what: `session: first tool turn (${thinkMs} ms, sandbox ${sandbox})` },
  );
  await expectRun(workspace, 2, 1, "session: first tool turn");
  return (at[1] ?? Number.NaN) - (at[0] ?? Number.NaN) - thinkMs;
}
