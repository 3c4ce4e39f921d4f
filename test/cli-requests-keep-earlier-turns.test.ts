import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { mockEnv } from "./mock-llm/collect.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";
import { gitRepo } from "./output-helpers.ts";

/**
 * Each request's body is joined from JSON kept per message (src/providers/wire-json.ts). Through the
 * built CLI, over a session of several tool turns: every request is what its parameters serialise
 * to, each carries the one before it unchanged (what prompt caching reads), Anthropic's cache
 * breakpoints sit on the last two user turns only, and a secret read in an early turn stays
 * redacted in every later request.
 */
const SECRET = "sk-ant-kept-0123456789abcdef";
const TURNS = 8;

let mock: MockLlm | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

type Block = Record<string, unknown>;
type Message = { role: string; content: string | Block[] };

function withoutBreakpoints(messages: Message[]): Message[] {
  return messages.map((message) => ({
    ...message,
    content: Array.isArray(message.content)
      ? message.content.map(({ cache_control: _mark, ...block }) => block)
      : message.content,
  }));
}

function breakpoints(messages: Message[]): number[] {
  return messages.flatMap((message, index) =>
    Array.isArray(message.content) && message.content.some((block) => "cache_control" in block)
      ? [index]
      : [],
  );
}

describe("the requests of a session, through the built CLI", () => {
  test("each carries the one before unchanged, breakpoints on the last two user turns, no secret", async () => {
    let next = 0;
    mock = await startMockLlm({
      script: () => {
        const turn = next++;
        if (turn >= TURNS) return { text: "Done." };
        const call =
          turn % 2 === 0
            ? { name: "read", arguments: { path: "notes.txt" } }
            : { name: "write", arguments: { path: `out-${turn}.txt`, content: `turn ${turn} ✓\n` } };
        return { text: `Turn ${turn}.`, toolCalls: [call] };
      },
    });
    const repo = gitRepo({
      "task.yml": "model: anthropic:claude-haiku-5-5\nprompt: Take notes.\ntools: [read, write]\n",
      "notes.txt": `the key is ${SECRET}\nünïcödé "quoted" \\ back\n`,
    });
    const result = await runCli([path.join(repo, "task.yml")], {
      cwd: repo,
      env: { ...mockEnv(mock.url), ANTHROPIC_API_KEY: SECRET },
    });
    expect(result.code).toBe(0);
    expect(mock.requests).toHaveLength(TURNS + 1);

    let before: Message[] = [];
    for (const request of mock.requests) {
      const body = request.body as { messages: Message[] };
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.bytes).toBe(Buffer.byteLength(JSON.stringify(body)));
      expect(JSON.stringify(body)).not.toContain(SECRET);
      const messages = body.messages;
      const users = messages.flatMap((message, index) => (message.role === "user" ? [index] : []));
      expect(breakpoints(messages)).toEqual(users.slice(-2));
      const plain = withoutBreakpoints(messages);
      expect(plain.slice(0, before.length)).toEqual(before);
      before = plain;
    }
    expect(before.length).toBe(1 + 2 * TURNS);
    expect(JSON.stringify(before)).toContain("the key is ***");
  });
});
