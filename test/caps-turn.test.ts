import { rm } from "node:fs/promises";
import { afterEach, describe, expect, test } from "vitest";
import type { AgentToolResult, AssistantMessage, ToolCall } from "../src/core/types.ts";
import { emptyUsage } from "../src/core/usage.ts";
import { ALWAYS_KEPT_BYTES, withTurnCaps } from "../src/run/turn-caps.ts";
import { type EventLine, resultText, runScriptedCli, toolEnds } from "./helpers/scripted-cli.ts";
import { trustWorkspace } from "./helpers/trust.ts";

const TASK = (extra = "") => `model: anthropic:claude-sonnet-4-5\nprompt: read\ntools: [read, ls]\n${extra}`;
const MiB = 1024 * 1024;
/** ~50 KiB a read: 600 lines of 80 characters (under read's 2000 lines, at its 50 KiB). */
const BIG = `${"x".repeat(79)}\n`.repeat(640);

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function workspace(): Promise<string> {
  const dir = await trustWorkspace({ "big.txt": BIG, "small.txt": "small\n" }, { git: true });
  dirs.push(dir);
  return dir;
}

/** What a result holds, as the runner keeps it: text, image data and details. */
function heldBytes(event: EventLine): number {
  const content = event.result?.content ?? [];
  const text = content.reduce((sum, part) => sum + Buffer.byteLength(part.text ?? ""), 0);
  return text + Buffer.byteLength(JSON.stringify(event.result?.details ?? {}));
}

describe("one turn's tool results and calls are capped (CLI)", () => {
  test("300 parallel reads of 50 KiB each: the turn keeps about 4 MiB, the rest is cut with a note", async () => {
    const dir = await workspace();
    const reads = Array.from({ length: 300 }, () => ({ name: "read", arguments: { path: "big.txt" } }));
    const run = await runScriptedCli(dir, TASK(), [{ tool_calls: reads }, { text: "done" }]);
    expect(run.code).toBe(0);
    const ends = toolEnds(run.events);
    expect(ends).toHaveLength(300);
    const full = ends.filter((end) => !resultText(end).includes("[result cut"));
    const cut = ends.filter((end) => resultText(end).includes("[result cut"));
    // Without the cap every one of them is whole: 300 × 50 KiB = 15 MiB.
    expect(full.length).toBeGreaterThan(40);
    expect(full.length).toBeLessThan(100);
    expect(cut.length).toBe(300 - full.length);
    expect(resultText(cut.at(-1)!)).toMatch(
      /\[result cut: this turn's tool results reached the cap of 4MiB \(caps\.turn_results\); \d+ of its \d+ bytes were dropped\./,
    );
    const total = ends.reduce((sum, end) => sum + heldBytes(end), 0);
    expect(total).toBeLessThan(4 * MiB + 300 * (ALWAYS_KEPT_BYTES + 400));
    expect(total).toBeGreaterThan(4 * MiB - 64 * 1024);
  }, 120_000);

  test("a smaller cap holds too, and the next turn starts with a fresh budget", async () => {
    const dir = await workspace();
    const reads = (n: number) =>
      Array.from({ length: n }, () => ({ name: "read", arguments: { path: "big.txt" } }));
    const run = await runScriptedCli(dir, TASK("caps: { turn_results: 120KiB }\n"), [
      { tool_calls: reads(5) },
      { tool_calls: reads(2) },
      { text: "done" },
    ]);
    expect(run.code).toBe(0);
    const ends = toolEnds(run.events);
    const cutIn = (turn: number) =>
      ends.filter(
        (end) => end.toolCallId?.startsWith(`call_${turn}_`) && resultText(end).includes("[result cut"),
      ).length;
    expect(cutIn(1)).toBe(3);
    expect(cutIn(2)).toBe(0);
  }, 60_000);

  test("500 calls in one message with turn_tool_calls: 100: the first 100 run, the others are blocked", async () => {
    const dir = await workspace();
    const calls = Array.from({ length: 500 }, () => ({ name: "read", arguments: { path: "small.txt" } }));
    const run = await runScriptedCli(dir, TASK("caps: { turn_tool_calls: 100 }\n"), [
      { tool_calls: calls },
      { text: "done" },
    ]);
    expect(run.code).toBe(0);
    const ends = toolEnds(run.events);
    expect(ends).toHaveLength(500);
    expect(ends.slice(0, 100).every((end) => !end.blocked && resultText(end).includes("small"))).toBe(true);
    expect(ends.slice(100).every((end) => end.blocked)).toBe(true);
    expect(ends[100]!.blockReason).toBe(
      "this turn has 500 tool calls and only the first 100 run (caps.turn_tool_calls); send this one again in a later turn",
    );
    const byTool = (run.usage.tool_calls as { by_tool: Record<string, { calls: number; blocked: number }> })
      .by_tool;
    expect(byTool.read).toMatchObject({ calls: 500, blocked: 400 });
  }, 120_000);
});

describe("what a cut keeps", () => {
  const message = (calls: number): AssistantMessage => ({
    role: "assistant",
    content: Array.from({ length: calls }, (_, i) => ({
      type: "toolCall" as const,
      id: `c${i}`,
      name: "t",
      arguments: {},
    })),
    provider: "p",
    model: "m",
    usage: emptyUsage(),
    stopReason: "toolUse",
    timestamp: 0,
  });
  const afterCall = (
    caps: ReturnType<typeof withTurnCaps>,
    msg: AssistantMessage,
    index: number,
    result: AgentToolResult,
  ) =>
    caps.afterToolCall(
      {
        assistantMessage: msg,
        toolCall: msg.content[index] as ToolCall,
        args: {},
        result,
        isError: false,
        context: { systemPrompt: "", messages: [], tools: [] },
      },
      new AbortController().signal,
    );

  test("small results pass whole even past the cap; big ones lose images and details first, keep head and tail", async () => {
    const caps = withTurnCaps({ maxCalls: 10, maxResultBytes: 10_000 }, {});
    const msg = message(3);
    const big: AgentToolResult = {
      content: [
        { type: "text", text: `${"a\n".repeat(4000)}END\n` },
        { type: "image", data: "x".repeat(20_000), mimeType: "image/png" },
      ],
      details: { blob: "d".repeat(5000) },
    };
    expect(
      await afterCall(caps, msg, 0, { content: [{ type: "text", text: "x".repeat(9000) }], details: {} }),
    ).toBeUndefined();
    const patch = await afterCall(caps, msg, 1, big);
    const texts = (patch?.content ?? []).map((part) => (part.type === "text" ? part.text : `[${part.type}]`));
    expect(texts.join("")).toContain("[an image (image/png) was dropped here]");
    expect(texts.join("")).toContain("caps.turn_results");
    expect(texts[0]!.startsWith("a\n")).toBe(true);
    expect(texts[0]!).toContain("END");
    expect(patch?.details).toEqual({ cut: { reason: "turn_results", droppedBytes: 5011 } });
    const small: AgentToolResult = { content: [{ type: "text", text: "ok" }], details: { reason: "why" } };
    expect(await afterCall(caps, msg, 2, small)).toBeUndefined();
  });
});
