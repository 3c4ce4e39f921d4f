import { expect, test } from "vitest";
import { createTextRenderer, type TextRenderMode } from "../src/render/text.ts";
import type { CompactRunEvent } from "../src/run/compact-event.ts";

/**
 * Issue 16: the terminal says why. A failed or blocked call shows the first line of the result the
 * model got, verbatim and cut to the width; every command hook that ran (after_tool_call,
 * before_stop passing or failing) has its line.
 */
function result(toolCallId: string, toolName: string, text: string, isError = true) {
  return {
    role: "toolResult" as const,
    toolCallId,
    toolName,
    content: [{ type: "text" as const, text }],
    details: undefined,
    isError,
    timestamp: 0,
  };
}

const hookEnd = (
  hook: "after_tool_call" | "before_stop",
  command: string,
  outcome: "none" | "pass" | "fail" | "output",
  reason?: string,
): CompactRunEvent => ({
  type: "hook_end",
  hook,
  rule: 0,
  command,
  exitCode: outcome === "fail" ? 1 : 0,
  durationMs: 1234,
  timedOut: false,
  outcome,
  ...(reason && { reason }),
  stdoutBytes: 0,
  stderrBytes: 0,
  outputTruncated: false,
});

const events: CompactRunEvent[] = [
  { type: "tool_execution_start", toolCallId: "a", toolName: "edit", args: { path: "src/a.ts" } },
  {
    type: "tool_execution_end",
    toolCallId: "a",
    toolName: "edit",
    result: result(
      "a",
      "edit",
      "\noldText was not found in src/a.ts; nearest candidates: line 17\n  17 | const x = 1;",
    ),
    isError: true,
    blocked: false,
    durationMs: 3,
  },
  hookEnd("after_tool_call", "npx eslint --fix -- src/a.ts", "none"),
  { type: "tool_execution_start", toolCallId: "b", toolName: "bash", args: { command: "git push" } },
  {
    type: "tool_execution_end",
    toolCallId: "b",
    toolName: "bash",
    result: result("b", "bash", "Blocked: pushing is the workflow's job, not the agent's"),
    isError: true,
    blocked: true,
    blockReason: "pushing is the workflow's job, not the agent's",
    durationMs: 1,
  },
  { type: "tool_execution_start", toolCallId: "c", toolName: "bash", args: { command: "npm test" } },
  {
    type: "tool_execution_end",
    toolCallId: "c",
    toolName: "bash",
    result: result("c", "bash", `\u001b[31mFAIL\u001b[0m ${"x".repeat(300)}`),
    isError: true,
    blocked: false,
    durationMs: 1500,
  },
  hookEnd("before_stop", "npm run lint", "fail", "failed (exit code 1); attempt 1 of 3"),
  hookEnd("before_stop", "npm run lint", "pass"),
];

function render(mode: TextRenderMode, columns?: number): string {
  let out = "";
  const renderer = createTextRenderer({
    write: (chunk) => {
      out += chunk;
    },
    mode,
    color: false,
    ...(columns !== undefined && { columns }),
  });
  for (const event of events) renderer(event);
  return out;
}

test("plain: the reason under each failed or blocked call, hook runs with their outcome", () => {
  expect(render("plain", 80)).toMatchInlineSnapshot(`
    "  ✗ edit src/a.ts (3 ms) error
          oldText was not found in src/a.ts; nearest candidates: line 17
      ✓ after_tool_call npx eslint --fix -- src/a.ts (1.2 s) none
      ⊘ bash git push (1 ms) blocked
          Blocked: pushing is the workflow's job, not the agent's
      ✗ bash npm test (1.5 s) error
          FAIL xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…
      ✗ before_stop npm run lint (1.2 s) fail
          failed (exit code 1); attempt 1 of 3
      ✓ before_stop npm run lint (1.2 s) pass
    "
  `);
});

test("the reason is cut to the width given; without one, to 200 columns", () => {
  const lines = render("plain").split("\n");
  const cut = lines.find((line) => line.includes("FAIL"))!;
  expect(cut.length).toBe(200);
  expect(cut.endsWith("x…")).toBe(true);
  const why = render("plain", 60)
    .split("\n")
    .filter((line) => line.startsWith("      "));
  expect(why).toHaveLength(4);
  for (const line of why) expect(line.length).toBeLessThanOrEqual(60);
});

test("github: the same lines, none of them a workflow command", () => {
  const text = render("github", 80);
  expect(text).toContain("      oldText was not found in src/a.ts; nearest candidates: line 17\n");
  expect(text).toContain("  ✓ before_stop npm run lint (1.2 s) pass\n");
});

test("the last line counts in words a person would write: 1 turn, 1 file changed", () => {
  const lines: string[] = [];
  const renderer = createTextRenderer({ write: (chunk) => lines.push(chunk), mode: "plain", color: false });
  const end = (turns: number, filesChanged: number): CompactRunEvent => ({
    type: "run_end",
    conclusion: "success",
    exitCode: 0,
    turns,
    durationMs: 1200,
    costUsd: null,
    filesChanged,
  });
  renderer(end(1, 1));
  renderer(end(2, 0));
  expect(lines.join("")).toContain("success · 1 turn · 1.2 s · cost unknown · 1 file changed");
  expect(lines.join("")).toContain("success · 2 turns · 1.2 s · cost unknown · 0 files changed");
});
