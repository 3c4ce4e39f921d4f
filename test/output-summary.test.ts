import { describe, expect, test } from "vitest";
import { renderSummary } from "../src/output/summary.ts";
import type { WorkspaceDiff } from "../src/output/types.ts";
import { makeRecord } from "./output-helpers.ts";

const diff: WorkspaceDiff = {
  patch: "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
  files: [{ path: "a.txt", status: "modified", additions: 1, deletions: 1, binary: false }],
  diffstat: " a.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n",
};

const usage = {
  input: 12_345,
  output: 678,
  cacheRead: 1000,
  cacheWrite: 0,
  totalTokens: 14_023,
  cost: { input: 0.037, output: 0.0102, cacheRead: 0.0003, cacheWrite: 0, total: 0.0475 },
};

describe("renderSummary", () => {
  test("a successful run: conclusion, task, changes, collapsed patch, usage, tools, last message", () => {
    const summary = renderSummary(
      makeRecord({
        turns: 3,
        durationMs: 83_000,
        usage,
        models: ["anthropic:claude-sonnet-4-5", "anthropic:claude-haiku-4-5"],
        model: "anthropic:claude-haiku-4-5",
        toolCalls: {
          read: { calls: 2, errors: 0, blocked: 0, durationMs: 12 },
          bash: { calls: 3, errors: 1, blocked: 1, durationMs: 2100 },
        },
        blocked: [{ tool: "bash", reason: "git push is denied", turn: 2, args: "git push origin main" }],
        hookFailures: [{ hook: "before_stop", command: "npm run lint", message: "2 errors remain" }],
        lastAssistantText: "Fixed the **lint** errors in `a.txt`.",
      }),
      diff,
    );
    expect(summary).toMatchInlineSnapshot(`
      "### ✅ Success: fix-lint

      > Fix every lint error

      #### Files changed (1)

      \`\`\`text
       a.txt | 2 +-
       1 file changed, 1 insertion(+), 1 deletion(-)
      \`\`\`

      <details><summary>Patch (+1 −1)</summary>

      \`\`\`diff
      diff --git a/a.txt b/a.txt
      --- a/a.txt
      +++ b/a.txt
      @@ -1 +1 @@
      -a
      +b
      \`\`\`
      </details>

      #### Usage

      | Turns | Input | Output | Cache read | Cache write | Total tokens | Cost | Duration | Model |
      | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
      | 3 | 12,345 | 678 | 1,000 | 0 | 14,023 | $0.0475 | 1m 23s | anthropic:claude-haiku-4-5 |

      Models used, in order: anthropic:claude-sonnet-4-5 → anthropic:claude-haiku-4-5

      #### Tool calls

      | Tool | Calls | Errors | Blocked | Time |
      | --- | ---: | ---: | ---: | ---: |
      | bash | 3 | 1 | 1 | 2.1 s |
      | read | 2 | 0 | 0 | 12 ms |

      #### Blocked calls (1)

      - **bash** \`git push origin main\` (turn 2): git push is denied

      #### Hook failures (1)

      - **before\\_stop** \`npm run lint\`: 2 errors remain

      #### Last assistant message

      > Fixed the **lint** errors in \`a.txt\`.
      "
    `);
  });

  test("a failed diff: an empty patch said so, and no usage cost when the price is unknown", () => {
    const summary = renderSummary(
      makeRecord({ conclusion: "interrupted", reason: "SIGTERM", usage: { ...usage, costUnknown: true } }),
      null,
      { diffError: "git write-tree failed: disk full" },
    );
    expect(summary).toMatchInlineSnapshot(`
      "### ⏹️ Interrupted: fix-lint

      > Fix every lint error

      **Why:** SIGTERM

      #### Files changed

      The patch could not be computed: git write-tree failed: disk full. \`patch.diff\` is empty.

      #### Usage

      | Turns | Input | Output | Cache read | Cache write | Total tokens | Cost | Duration | Model |
      | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
      | 0 | 12,345 | 678 | 1,000 | 0 | 14,023 | unknown | 0 ms | anthropic:claude-sonnet-4-5 |

      #### Tool calls

      None.
      "
    `);
  });

  test("injection attempts from the model and from files are neutralised", () => {
    const hostile = makeRecord({
      taskName: "x <img src=x onerror=alert(1)> | y",
      description: "ping @octocat and @github/security ![x](http://t/x.png) <!-- hidden",
      reason: "</details><script>alert(1)</script>",
      toolCalls: { "evil|tool": { calls: 1, errors: 0, blocked: 1, durationMs: 1 } },
      blocked: [{ tool: "bash", reason: "@admin <b>bold</b>", turn: 1, args: "echo `whoami` ``x``" }],
      lastAssistantText: [
        "Hi @octocat, see <details><summary>x</summary> and `<code>` and \\`<i>escaped</i>\\`.",
        "",
        "```js",
        "const a = '<script>'; // @inside-code",
        "```",
        "",
        "| a | b |",
        "# heading",
        "````",
        "unclosed fence <b>",
      ].join("\n"),
    });
    const fileDiff: WorkspaceDiff = {
      patch:
        "diff --git a/R.md b/R.md\n--- a/R.md\n+++ b/R.md\n@@ -0,0 +1,3 @@\n+```\n+</details>\n+@someone <img>\n",
      files: [{ path: "R.md", status: "modified", additions: 3, deletions: 0, binary: false }],
      diffstat: " R.md | 3 +++\n 1 file changed, 3 insertions(+), 0 deletions(-)\n",
    };
    const summary = renderSummary(hostile, fileDiff);
    expect(summary).toMatchInlineSnapshot(`
      "### ✅ Success: x &lt;img src=x onerror=alert(1)&gt; \\| y

      > ping @​octocat and @​github/security !\\[x\\](http://t/x.png) &lt;!-- hidden

      **Why:** &lt;/details&gt;&lt;script&gt;alert(1)&lt;/script&gt;

      #### Files changed (1)

      \`\`\`text
       R.md | 3 +++
       1 file changed, 3 insertions(+), 0 deletions(-)
      \`\`\`

      <details><summary>Patch (+3 −0)</summary>

      \`\`\`\`diff
      diff --git a/R.md b/R.md
      --- a/R.md
      +++ b/R.md
      @@ -0,0 +1,3 @@
      +\`\`\`
      +</details>
      +@someone <img>
      \`\`\`\`
      </details>

      #### Usage

      | Turns | Input | Output | Cache read | Cache write | Total tokens | Cost | Duration | Model |
      | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
      | 0 | 0 | 0 | 0 | 0 | 0 | $0.0000 | 0 ms | anthropic:claude-sonnet-4-5 |

      #### Tool calls

      | Tool | Calls | Errors | Blocked | Time |
      | --- | ---: | ---: | ---: | ---: |
      | evil\\|tool | 1 | 0 | 1 | 1 ms |

      #### Blocked calls (1)

      - **bash** \`\`\` echo \`whoami\` \`\`x\`\` \`\`\` (turn 1): @​admin &lt;b&gt;bold&lt;/b&gt;

      #### Last assistant message

      > Hi @​octocat, see &lt;details&gt;&lt;summary&gt;x&lt;/summary&gt; and \`<code>\` and \\\`&lt;i&gt;escaped&lt;/i&gt;\\\`.
      >
      > \`\`\`js
      > const a = '<script>'; // @inside-code
      > \`\`\`
      >
      > | a | b |
      > # heading
      > \`\`\`\`
      > unclosed fence <b>
      > \`\`\`\`
      "
    `);
    const outsideCode = summary
      .replace(/^> ?/gm, "")
      .replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1$/gm, "")
      .replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, "");
    expect(outsideCode).not.toMatch(/<(?!\/?(details|summary)>)/);
    expect(outsideCode).not.toMatch(/@[a-z]/i);
  });

  test("a patch longer than the limit is cut at a line, with a note and a link to the run", () => {
    const line = "+const value = 'some long line of generated code';\n";
    const big: WorkspaceDiff = {
      ...diff,
      patch: `diff --git a/big.ts b/big.ts\n--- a/big.ts\n+++ b/big.ts\n@@ -0,0 +1,4000 @@\n${line.repeat(4000)}`,
    };
    const summary = renderSummary(makeRecord({ runUrl: "https://github.com/o/r/actions/runs/1" }), big);
    expect(summary.length).toBeLessThanOrEqual(65_536);
    expect(summary.length).toBeGreaterThan(60_000);
    expect(summary).toContain(
      "characters shown. The full patch is in `patch.diff` of [the run](https://github.com/o/r/actions/runs/1).*",
    );
    expect(summary).toMatch(
      /\n\+const value = 'some long line of generated code';\n```\n\n\*Patch cut here: /,
    );
    expect(summary.indexOf("#### Usage")).toBeGreaterThan(summary.indexOf("Patch cut here"));
    const small = renderSummary(makeRecord(), big, { maxChars: 5000 });
    expect(small.length).toBeLessThanOrEqual(5000);
  });

  test("when even the fixed sections overflow, the cut closes the block it landed in", () => {
    const files = Array.from({ length: 100 }, (_, i) => ({
      path: `src/${"deep/".repeat(30)}file${i}.ts`,
      status: "modified" as const,
      additions: 1,
      deletions: 0,
      binary: false,
    }));
    const many: WorkspaceDiff = {
      patch: "",
      files,
      diffstat: `${files.map((f) => ` ${f.path} | 1 +`).join("\n")}\n ${files.length} files changed, 100 insertions(+), 0 deletions(-)\n`,
    };
    const summary = renderSummary(makeRecord(), many, { maxChars: 3000 });
    expect(summary.length).toBeLessThanOrEqual(3000);
    expect(summary).toMatch(/ \| 1 \+\n```\n\n\*\(summary cut to fit\)\*\n$/);
  });
});
