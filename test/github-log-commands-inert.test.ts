import path from "node:path";
import { describe, expect, test } from "vitest";
import {
  escapeWorkflowCommandText,
  looksLikeWorkflowCommand,
  stopCommandsBlock,
} from "../src/run/workflow-commands.ts";
import { runCli, tempWorkspace } from "./helpers/cli.ts";

/** Lines the Actions runner would act on, other than the renderer's own folding. */
function commandLines(log: string): string[] {
  return log
    .split(/\r\n|\r|\n/)
    .filter((line) => looksLikeWorkflowCommand(line) && !/^::(group|endgroup)::/.test(line));
}

describe("the GitHub log cannot be made to run workflow commands", () => {
  test("the CLI on Actions: commands in tool arguments, tool output and model text stay inert", async () => {
    const attack = "echo '::add-mask::x'; echo '::error::pwned'; echo '##[error]old-style'";
    const dir = await tempWorkspace({
      "task.yml": "name: t\nmodel: anthropic:claude-sonnet-4-5\nprompt: p\ntools: [bash]\n",
      "s.json": JSON.stringify({
        turns: [
          {
            tool_calls: [
              { name: "bash", arguments: { command: attack } },
              { name: "bash", arguments: { command: "true\n::error file=a.ts::from-newline\n##[warning]x" } },
            ],
          },
          { text: "done\n::error::from-model\n::add-mask::done" },
        ],
      }),
    });
    const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.json")], {
      env: { GITHUB_ACTIONS: "true" },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("::group::turn 1");
    expect(result.stderr).toContain("add-mask");
    expect(commandLines(result.stdout + result.stderr)).toEqual([]);
  }, 60_000);

  test.for([
    ["::error::x", "\\::error::x"],
    ["  ::add-mask::x", "\\  ::add-mask::x"],
    ["\u200b::warning::x", "\\\u200b::warning::x"],
    ["a\n::error::x", "a ::error::x"],
    ["a\r::error::x", "a ::error::x"],
    ["say ##[error]x", "say #\u200b#[error]x"],
    ["plain text", "plain text"],
  ] as const)("escapeWorkflowCommandText(%j) → %j", ([input, expected]) => {
    const escaped = escapeWorkflowCommandText(input);
    expect(escaped).toBe(expected);
    expect(looksLikeWorkflowCommand(escaped)).toBe(false);
  });

  test("stopCommandsBlock wraps text between stop-commands markers with a token the text does not hold", () => {
    const text = "::add-mask::x\n::error::y\n";
    expect(stopCommandsBlock(text, "tok123")).toBe(
      "::stop-commands::tok123\n::add-mask::x\n::error::y\n::tok123::\n",
    );
    const clash = stopCommandsBlock("::tok123::\n", "tok123");
    const token = /^::stop-commands::([0-9a-f]+)\n/.exec(clash)?.[1];
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(clash.endsWith(`::${token}::\n`)).toBe(true);
  });
});
