import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

/**
 * The same failing call (same tool, arguments and error) made again and again: at the third in a
 * row the model is told it is repeating itself, at the fifth the run ends as a failure (exit 1)
 * with that reason, instead of burning the budget.
 */
let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const REPEATING = "you are repeating yourself";

async function runScript(turns: MockReply[], extraYaml = "") {
  let next = 0;
  mock = await startMockLlm({ script: () => turns[next++] ?? { text: "Done." } });
  const dir = await tempWorkspace({
    "task.yml": `model: anthropic:claude-haiku-5-5\nprompt: Read the config.\ntools: [read]\n${extraYaml}`,
    "other.txt": "here\n",
  });
  const result = await runCli([path.join(dir, "task.yml")], { cwd: dir, env: mockEnv(mock.url) });
  const usage = JSON.parse(await readFile(path.join(dir, ".agent-run", "usage.json"), "utf8")) as Record<
    string,
    unknown
  >;
  const summary = await readFile(path.join(dir, ".agent-run", "summary.md"), "utf8");
  const told = mock.requests.map((r) => JSON.stringify(r.body).split(REPEATING).length - 1);
  return { result, usage, summary, told };
}

const read = (file: string): MockReply => ({ toolCalls: [{ name: "read", arguments: { path: file } }] });

describe("repeated failing calls", () => {
  test("told at the third identical failure, ended as a failure at the fifth", async () => {
    const r = await runScript(Array.from({ length: 8 }, () => read("missing.txt")));
    expect(r.result.code).toBe(1);
    expect(r.told).toEqual([0, 0, 0, 1, 2]);
    expect(r.usage.conclusion).toBe("failure");
    expect(r.usage.turns).toBe(5);
    expect(r.summary).toContain("the same tool call failed 5 times in a row with the same error: read");
    expect(r.summary).toContain("missing.txt");
  }, 30_000);

  test("another call in between starts the count over", async () => {
    const turns = [
      read("missing.txt"),
      read("missing.txt"),
      read("other.txt"),
      read("missing.txt"),
      read("missing.txt"),
    ];
    const r = await runScript(turns);
    expect(r.result.code).toBe(0);
    expect(r.told.every((n) => n === 0)).toBe(true);
  }, 30_000);

  test("copies of a failing call in one message count once: the model had seen none of them fail", async () => {
    const six: MockReply = {
      toolCalls: Array.from({ length: 6 }, () => ({ name: "read", arguments: { path: "missing.txt" } })),
    };
    const r = await runScript([six, six, read("other.txt")]);
    expect(r.result.code).toBe(0);
    expect(r.told.every((n) => n === 0)).toBe(true);
    expect(r.usage.conclusion).toBe("success");
  }, 30_000);

  test("the same arguments in another key order are the same call; a blocked call counts too", async () => {
    const blocked: MockReply = { toolCalls: [{ name: "read", arguments: { path: "secret.env", limit: 5 } }] };
    const reordered: MockReply = {
      toolCalls: [{ name: "read", arguments: { limit: 5, path: "secret.env" } }],
    };
    const r = await runScript(
      [blocked, reordered, blocked, reordered, blocked, blocked],
      'hooks:\n  before_tool_call:\n    - match: { path: "*.env" }\n      block: env files are off limits\n',
    );
    expect(r.result.code).toBe(1);
    expect(r.told).toEqual([0, 0, 0, 1, 2]);
    expect(r.summary).toContain("env files are off limits");
  }, 30_000);
});
