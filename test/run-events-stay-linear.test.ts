import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { CompactRunEvent } from "../src/run/compact-event.ts";
import { runTask } from "../src/run/index.ts";
import { tempWorkspace } from "./helpers/cli.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

let mock: MockLlm;
const reply = "word ".repeat(4000); // 20,000 characters, streamed in 8-character deltas

beforeAll(async () => {
  mock = await startMockLlm({ script: [{ text: reply, usage: { input: 10, output: 5000 } }] });
});
afterAll(() => mock.close());

test("a long streamed reply is written once, not once per delta", async () => {
  const dir = await tempWorkspace({
    "task.yml": "model: anthropic:claude-haiku-4-5\nprompt: talk\ntools: []\nsandbox: off\n",
  });
  const seen: CompactRunEvent[] = [];
  const result = await runTask({
    taskFile: path.join(dir, "task.yml"),
    env: { ...process.env, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: mock.url },
    onEvent: (event) => seen.push(event),
  });
  expect(result.exitCode).toBe(0);
  const file = await readFile(result.outputs.events, "utf8");
  const deltas = seen.filter((e) => e.type === "message_update" && e.update === "text_delta");
  expect(deltas.length).toBeGreaterThan(2000);
  expect(deltas.map((e) => (e.type === "message_update" ? e.delta : "")).join("")).toBe(reply);
  // Each delta line is small. Repeating the partial message per delta would write ~25 MB here.
  expect(
    Math.max(...file.split("\n").map((line) => (line.includes('"text_delta"') ? line.length : 0))),
  ).toBeLessThan(200);
  expect(file.length).toBeLessThan(1_000_000);
  // The reply itself is written whole once: in its message_end.
  expect(file.split(reply).length - 1).toBe(1);
  expect(file).toContain('{"type":"turn_end","turn":1,"stopReason":"stop","toolCallIds":[]}');
});
