import { expect, test } from "vitest";
import { inlineWithCode } from "../src/output/markdown.ts";
import { renderSummary } from "../src/output/summary.ts";
import { makeRecord } from "./output-helpers.ts";

/**
 * Issue 16: summary.md renders code our messages quote as code (no literal backticks), lists
 * every command hook that ran (after_tool_call runs, before_stop passing), and model or hook text
 * cannot break out of a code span.
 */
test("code quoted in reasons, notes, blocks and hook failures is a code span; hook runs are listed", () => {
  const summary = renderSummary(
    makeRecord({
      conclusion: "failure",
      description: "Fix `npm run lint` errors",
      reason: "`npm run lint` still failing after 3 attempts",
      notes: ["commands ran without a sandbox (`sandbox: off`)"],
      blocked: [{ tool: "bash", reason: "blocked by `./guard.sh` <b>", turn: 2, args: "git push" }],
      hookFailures: [
        {
          hook: "before_stop",
          command: "npm run lint",
          message: "`npm run lint` still failing after 3 attempts",
        },
      ],
      hookRuns: [
        {
          hook: "after_tool_call",
          rule: 0,
          command: "npx eslint --fix -- src/a.ts",
          runs: 4,
          outcomes: { none: 3, output: 1 },
          lastOutcome: "none",
          durationMs: 5200,
        },
        {
          hook: "before_stop",
          rule: 0,
          command: "npm test",
          runs: 1,
          outcomes: { pass: 1 },
          lastOutcome: "pass",
          durationMs: 900,
        },
        {
          hook: "before_stop",
          rule: 1,
          command: "npm run lint | tee x",
          runs: 3,
          outcomes: { fail: 3 },
          lastOutcome: "fail",
          durationMs: 2100,
        },
      ],
    }),
    null,
  );
  const head = summary.slice(0, summary.indexOf("#### Files changed"));
  expect(head).toMatchInlineSnapshot(`
    "### ❌ Failure: fix-lint

    > Fix \`npm run lint\` errors

    **Why:** \`npm run lint\` still failing after 3 attempts

    #### Notes

    - ⚠️ commands ran without a sandbox (\`sandbox: off\`)

    "
  `);
  const tail = summary.slice(summary.indexOf("#### Blocked calls"), summary.indexOf("#### Last"));
  expect(tail).toMatchInlineSnapshot(`
    "#### Blocked calls (1)

    - **bash** \`git push\` (turn 2): blocked by \`./guard.sh\` &lt;b&gt;

    #### Hooks run

    | Hook | Command (first run) | Runs | Outcomes | Last | Time |
    | --- | --- | ---: | --- | --- | ---: |
    | after\\_tool\\_call | npx eslint --fix -- src/a.ts | 4 | none 3, output 1 | none | 5.2 s |
    | before\\_stop | npm test | 1 | pass 1 | pass | 900 ms |
    | before\\_stop | npm run lint \\| tee x | 3 | fail 3 | fail | 2.1 s |

    #### Hook failures (1)

    - **before\\_stop** \`npm run lint\`: \`npm run lint\` still failing after 3 attempts"
  `);
  expect(summary).not.toContain("\\`");
});

test.for([
  // A span whose text holds backticks gets a longer delimiter; its content stays inert.
  ["run ``a `b` c`` now", "run ``a `b` c`` now"],
  // HTML and mentions inside a span are not interpreted; outside they are escaped.
  ["`<img src=x>` and <img src=x> @team", "`<img src=x>` and &lt;img src=x&gt; @\u200bteam"],
  // An unclosed run is a literal backtick, escaped; so is an empty span.
  ["it is `open", "it is \\`open"],
  ["`` `` x", "\\`\\` \\`\\` x"],
  // A line break cannot end the list item or open a heading.
  ["`a\n# b` c\n# d", "`a # b` c \\# d"],
  // A span that ends in a backtick run is padded, so the delimiter stays whole.
  ["`` `x` ``", "`` `x` ``"],
] as const)("inlineWithCode(%j)", ([input, expected]) => {
  expect(inlineWithCode(input)).toBe(expected);
});
