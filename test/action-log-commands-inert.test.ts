/**
 * Text from the run cannot act as a workflow command in the Actions log: every attack line is read
 * by the runner emulation (test/fake-github/workflow-commands.ts), once raw and once through the
 * action's guard.
 */
import { describe, expect, test } from "vitest";
import { guardWorkflowCommands } from "../src/action/log-guard.ts";
import { parseWorkflowCommands } from "./fake-github/workflow-commands.ts";

const ATTACKS = [
  "::add-mask::x",
  "  ::error::pwned by a leading space",
  "::set-output name=a::b",
  "::warning file=README.md,line=1::forged",
  "  ✓ bash echo ##[error]pwned mid-line (3ms)",
  "\u200b::notice::behind a zero-width space",
  "::stop-commands::mine",
  "::error::after the attacker's own stop-commands",
  "::mine::",
  "::error::after the attacker's own resume",
];
const OWN = ["::group::turn 1 · anthropic:claude-sonnet-4-5", "::endgroup::"];

function guarded(chunks: string[]): string {
  let out = "";
  const guard = guardWorkflowCommands((chunk) => {
    out += chunk;
  });
  for (const chunk of chunks) guard.write(chunk);
  guard.flush();
  return out;
}

describe("the action's log guard", () => {
  test("the emulated runner acts on the attack lines when they are written raw", () => {
    const raw = parseWorkflowCommands([OWN[0], ...ATTACKS, OWN[1]].join("\n"));
    expect(raw.masks).toEqual(["x"]);
    expect(raw.outputs).toEqual({ a: "b" });
    expect(raw.annotations.map((c) => c.data)).toEqual(
      expect.arrayContaining(["pwned by a leading space", "forged", "after the attacker's own resume"]),
    );
  });

  test("through the guard: no mask, no annotation, no output; the group lines still fold", () => {
    const out = guarded([`${OWN[0]}\n`, ...ATTACKS.map((line) => `${line}\n`), `${OWN[1]}\n`]);
    const parsed = parseWorkflowCommands(out);
    expect(parsed.commands.map((c) => c.name)).toEqual(["group", "endgroup"]);
    expect(parsed.masks).toEqual([]);
    expect(parsed.annotations).toEqual([]);
    expect(parsed.outputs).toEqual({});
    // Still readable in the log, verbatim.
    for (const line of ATTACKS) expect(out.split("\n")).toContain(line);
  });

  test("a command split across chunks or hidden behind a lone \\r is caught too", () => {
    const out = guarded(["progress 10%\r::err", "or::split across chunks\n", "tail ::add-mask::", "y\r\n"]);
    const parsed = parseWorkflowCommands(out);
    expect(parsed.commands).toEqual([]);
    expect(out).toContain("::error::split across chunks");
  });

  test("an unfinished last line is written, guarded, by flush", () => {
    const out = guarded(["::add-mask::z"]);
    expect(parseWorkflowCommands(out).masks).toEqual([]);
    expect(out).toMatch(/^::stop-commands::[0-9a-f]{32}\n::add-mask::z\n::[0-9a-f]{32}::\n$/);
  });

  test("every wrapped line gets its own unguessable token", () => {
    const out = guarded(["::error::a\n::error::b\n"]);
    const tokens = [...out.matchAll(/^::stop-commands::([0-9a-f]+)$/gm)].map((m) => m[1]);
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).not.toBe(tokens[1]);
  });
});
