/**
 * The sandbox session's start (issue 18): bubblewrap and the exec server inside it, from the first
 * file call to its answer (one `lookup`), as a sandboxed run pays it once on its first tool call.
 * Also the bubblewrap probe (`detectSandbox`'s `bwrap … true`) and `prepareSandbox`. Measured
 * in this process from the sources (the same code as the bundle's), each run with a fresh probe.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createSandboxSession, detectSandbox, prepareSandbox, sandboxEnv } from "../../src/sandbox/index.ts";
import { runProcess } from "../../src/system/process.ts";
import type { BenchContext } from "./run-cli.ts";
import { type BenchRow, rowOf } from "./stats.ts";

export async function sessionStart(_ctx: BenchContext, runs: number): Promise<BenchRow[]> {
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
  return [
    rowOf("sandbox session", "bubblewrap probe ms", probe),
    rowOf("sandbox session", "prepareSandbox ms", prepare),
    rowOf("sandbox session", "session start ms (bwrap + exec server ready)", start),
  ];
}
