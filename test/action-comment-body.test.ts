import { describe, expect, test } from "vitest";
import { buildCommentBody, commentMarker } from "../src/action/comment-body.ts";
import { GITHUB_COMMENT_LIMIT } from "../src/output/summary.ts";

describe("commentMarker", () => {
  test("is the hidden HTML comment of DESIGN §6, safe for any task name", () => {
    expect(commentMarker("fix-lint")).toBe("<!-- agent-run:task=fix-lint -->");
    expect(commentMarker("a--b>\nc")).toBe("<!-- agent-run:task=a-b  c -->");
  });
});

describe("buildCommentBody", () => {
  test("is the marker line followed by summary.md, untouched when it fits", () => {
    expect(buildCommentBody("## ok\n", { taskName: "t" })).toBe("<!-- agent-run:task=t -->\n## ok\n");
  });

  test("a summary over the limit is cut on a line, its open fence and details closed, with a link to the run", () => {
    const patch = Array.from({ length: 20_000 }, (_, i) => `+line ${i}`).join("\n");
    const summary = `## fix-lint: success\n\n<details><summary>patch</summary>\n\n\`\`\`diff\n${patch}\n\`\`\`\n\n</details>\n`;
    const runUrl = "https://github.com/octo-org/octo-repo/actions/runs/77";

    const body = buildCommentBody(summary, { taskName: "fix-lint", runUrl });

    expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(body.length).toBeGreaterThan(GITHUB_COMMENT_LIMIT - 1_000);
    expect(body.startsWith("<!-- agent-run:task=fix-lint -->\n## fix-lint: success")).toBe(true);
    expect(body).toContain(`[the workflow run](${runUrl})`);
    const beforeNotice = body.slice(0, body.indexOf("> [!NOTE]"));
    expect(beforeNotice).toMatch(/\+line \d+\n```\n<\/details>\n*$/);
    expect(beforeNotice.match(/```/g)).toHaveLength(2);
  });

  test("respects a smaller maximum exactly", () => {
    const body = buildCommentBody("x\n".repeat(5_000), { taskName: "t", maxChars: 1_000 });
    expect(body.length).toBeLessThanOrEqual(1_000);
    expect(body).toContain("the workflow run's step summary");
  });
});
