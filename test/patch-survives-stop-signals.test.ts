import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readJson } from "./helpers/cli.ts";
import {
  expectPatchGivesEndState,
  startPatchRun,
  strayFiles,
  until,
  writingOutputs,
} from "./helpers/patch-run.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

/**
 * Stop signals at each moment of a run with a big changed file (issue 13: SIGTERM during the end
 * diff of a 300 MB file lost every output but events.jsonl). Every time, once the process ends on
 * its own, patch.diff holds every change made until the signal. Random bytes, the slowest content
 * for git. The four moments use AGENT_RUN_TEST_BIG_MB (default 24: 300 takes ~4 minutes on a busy
 * 2-core machine, and passes); GitHub's cancel sequence always uses 300 MB.
 */
const BIG_MB = Number(process.env.AGENT_RUN_TEST_BIG_MB ?? 24);
const GITHUB_BIG_MB = 300;
let bigMb = BIG_MB;

type Moment = "model stream" | "tool" | "end-of-run diff" | "output writing";

const LAST_REPLY: Record<Moment, MockReply> = {
  "model stream": { text: "Thinking it over", stallMs: 120_000 },
  tool: { toolCalls: [{ name: "bash", arguments: { command: "echo more > b.txt; sleep 120" } }] },
  "end-of-run diff": { text: "Done." },
  "output writing": { text: "Done." },
};

let mock: MockLlm;
let moment: Moment = "tool";
beforeAll(async () => {
  mock = await startMockLlm({
    // A small change in turn 1, the big file in turn 2, then the moment's reply.
    script: (index) =>
      index === 0
        ? { toolCalls: [{ name: "bash", arguments: { command: "echo edited >> a.txt" } }] }
        : index === 1
          ? {
              toolCalls: [
                {
                  name: "bash",
                  arguments: { command: `head -c ${bigMb * 1024 * 1024} /dev/urandom > big.bin` },
                },
              ],
            }
          : index === 2
            ? LAST_REPLY[moment]
            : { text: "Done." },
  });
});
afterAll(() => mock.close());

describe(`SIGTERM then SIGINT with a ${BIG_MB} MB file changed: patch.diff holds every change`, () => {
  test.for([
    ["model stream", 143],
    ["tool", 143],
    ["end-of-run diff", 0],
    ["output writing", 0],
  ] as const)("during the %s (exit %i)", { timeout: 600_000 }, async ([at, code]) => {
    moment = at;
    bigMb = BIG_MB;
    mock.requests.length = 0;
    const run = startPatchRun(mock, { "a.txt": "a\n" });
    if (at === "model stream") await until(() => mock.requests.length >= 3);
    if (at === "tool") await until(() => existsSync(path.join(run.root, "b.txt")));
    if (at === "end-of-run diff") await run.stdoutHas('"type":"agent_end"');
    if (at === "output writing") await until(() => writingOutputs(run.out), 600_000);
    run.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    run.child.kill("SIGINT");
    const result = await run.done;

    expect(result.code).toBe(code);
    expect(strayFiles(run.out)).toEqual([]);
    const usage = await readJson(path.join(run.out, "usage.json"));
    expect(usage.conclusion).toBe(code === 0 ? "success" : "interrupted");
    expect(usage.files_changed).toBe(at === "tool" ? 3 : 2);
    const summary = readFileSync(path.join(run.out, "summary.md"), "utf8");
    expect(summary).not.toContain("partial");
    expectPatchGivesEndState(run);
  });
});

describe(`GitHub's cancel sequence with a ${GITHUB_BIG_MB} MB file: SIGINT, SIGTERM 7.5 s later, SIGKILL 2.5 s after that`, () => {
  test.for([
    ["at its own pace", 7500],
    ["a second signal at once", 100],
  ] as const)(
    "patch.diff is there before SIGKILL, whole or marked partial (%s)",
    { timeout: 600_000 },
    async ([, secondAfterMs]) => {
      moment = "end-of-run diff";
      bigMb = GITHUB_BIG_MB;
      mock.requests.length = 0;
      const run = startPatchRun(mock, { "a.txt": "a\n" });
      await run.stdoutHas('"type":"agent_end"');
      const sent = Date.now();
      run.child.kill("SIGINT");
      const second = setTimeout(() => run.child.kill("SIGTERM"), secondAfterMs);
      const kill = setTimeout(() => run.child.kill("SIGKILL"), secondAfterMs + 2500);
      const result = await run.done;
      clearTimeout(second);
      clearTimeout(kill);
      const elapsed = Date.now() - sent;

      // Killed while writing, the runner leaves its temp file to its reaper.
      await until(() => strayFiles(run.out).length === 0, 5000).catch(() => {});
      expect(strayFiles(run.out)).toEqual([]);
      const summary = readFileSync(path.join(run.out, "summary.md"), "utf8");
      if (summary.includes("patch.diff is partial")) {
        // Killed before the full patch was written: the partial one must say so and still apply.
        expect(result.code).toBeNull();
        expect(elapsed).toBeGreaterThanOrEqual(secondAfterMs + 2500);
        const patch = readFileSync(path.join(run.out, "patch.diff"), "utf8");
        if (patch !== "") expect(patch).toContain("+edited");
      } else {
        // Whole (its summary is written after it): the run then ended by itself, or the SIGKILL
        // came while the process was exiting, after every output was written.
        if (result.code !== 0) expect(result.code).toBeNull();
        expectPatchGivesEndState(run);
      }
    },
  );
});
