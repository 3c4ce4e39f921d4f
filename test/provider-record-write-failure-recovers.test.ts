import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import type { StreamFunction } from "../src/core/provider.ts";
import type { AssistantMessage, Model } from "../src/core/types.ts";
import { emptyUsage } from "../src/core/usage.ts";
import { createRecorder, loadReplayFile } from "../src/providers/index.ts";
import { collect, streamRequest } from "./mock-llm/collect.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-record-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const model: Model = { provider: "test", id: "m" };

/** Answers each request with one finished text message: "turn 1", "turn 2", ... */
function counting(): StreamFunction {
  let n = 0;
  return async function* () {
    n++;
    const message: AssistantMessage = {
      role: "assistant",
      provider: "test",
      model: "m",
      content: [{ type: "text", text: `turn ${n}` }],
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: n,
    };
    yield { type: "done", message };
  };
}

test("a failed --record write does not stop the later ones; flush reports only the latest", async () => {
  // The recording's directory is a regular file: mkdir fails until it is removed.
  const blocker = join(dir, "rec");
  await writeFile(blocker, "in the way");
  const file = join(blocker, "session.yml");
  const recorder = createRecorder(counting(), file);

  await collect(recorder(streamRequest(model)));
  await expect(recorder.flush()).rejects.toThrow();

  await rm(blocker);
  await collect(recorder(streamRequest(model)));
  await recorder.flush();
  const replay = await loadReplayFile(file);
  expect(replay.turns.map((turn) => turn.text)).toEqual(["turn 1", "turn 2"]);
  expect(await readFile(file, "utf8")).toContain("# recorded by agent-run");
});
