import { rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CompactRunEvent as RunEvent } from "../src/run/compact-event.ts";
import { runTask } from "../src/run/run-task.ts";
import type { RunResult } from "../src/run/types.ts";
import { toolOutputs, trustWorkspace } from "./helpers/trust.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

const KEY_CANARY = "cnry-fallback-key-2468";
const GIT_CANARY = "cnry-fallback-git-1357";
const b64 = (text: string) => Buffer.from(text).toString("base64");

let mock: MockLlm;
let dir: string;
let result: RunResult;
const events: RunEvent[] = [];

beforeAll(async () => {
  mock = await startMockLlm({
    script: [
      {
        toolCalls: [
          { id: "b1", name: "bash", arguments: { command: 'echo "key=$CANARY_API_KEY"' } },
          { id: "b2", name: "bash", arguments: { command: "git config --get-regexp extraheader" } },
          { id: "r1", name: "read", arguments: { path: ".git/config" } },
          { id: "r2", name: "read", arguments: { path: "./.GIT/config" } },
          { id: "r3", name: "read", arguments: { path: "cfg" } },
          { id: "g1", name: "grep", arguments: { pattern: "basic", path: ".git" } },
        ],
      },
      { text: "done" },
    ],
  });
  dir = await trustWorkspace(
    { "a.txt": "a\n" },
    { extraheader: `AUTHORIZATION: basic ${b64(`x-access-token:${GIT_CANARY}`)}` },
  );
  await symlink(".git/config", path.join(dir, "cfg"));
  await writeFile(
    path.join(dir, "task.yml"),
    "model: anthropic:claude-sonnet-4-5\nprompt: p\ntools: [{ bash: { env: [CANARY_API_KEY] } }, read, grep]\n",
  );
  result = await runTask({
    taskFile: path.join(dir, "task.yml"),
    env: {
      ...process.env,
      AGENT_RUN_BWRAP: "/nonexistent/bwrap",
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: mock.url,
      CANARY_API_KEY: KEY_CANARY,
    },
    onEvent: (event) => events.push(event),
  });
}, 60_000);

afterAll(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

describe("without a sandbox (auto, trusted, no bubblewrap), known secrets are still kept from the model", () => {
  test("the run fell back and says so", () => {
    expect(result.sandbox).toBe("unsandboxed");
    expect(result.summaryMarkdown).toContain("without a sandbox");
  });

  test("a credential the command printed as is reaches the model as ***", () => {
    const body = JSON.stringify(mock.requests[1]?.body);
    expect(body).toContain("key=***");
    for (const secret of [KEY_CANARY, GIT_CANARY, b64(`x-access-token:${GIT_CANARY}`)]) {
      expect(body).not.toContain(secret);
    }
  });

  test("the file tools cannot read .git when it holds credentials: direct, ./ and case variant, symlink, grep", () => {
    const blocked = events
      .filter((e) => e.type === "tool_execution_end" && e.blocked)
      .map((e) => e.type === "tool_execution_end" && e.toolCallId);
    expect(blocked.sort()).toEqual(["g1", "r1", "r2", "r3"]);
    expect(toolOutputs(events).filter((text) => text.includes("holds credentials"))).toHaveLength(4);
  });
});
