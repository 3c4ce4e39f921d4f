import { describe, expect, test } from "vitest";
import { markdownTable, rowOf, spread } from "../bench/e2e/stats.ts";
import { rowsFromText } from "../bench/text-rows.ts";

describe("npm run bench's combined table", () => {
  test("free-form lines of the other benches become rows; a heading prefixes its indented lines", () => {
    const stdout = [
      "bash seq 1 3000000 (bundled): 109 ms, peak RSS 99 MB",
      "git repository, 20000 files, 10 changed, 5 runs:",
      "  snapshot: median 163 ms (341, 306, 160)",
      "  diff:     median 80 ms (83, 80, 82)  patch 3935 chars",
      "",
    ].join("\n");
    expect(rowsFromText("patch", stdout)).toEqual([
      {
        scenario: "patch: bash seq 1 3000000 (bundled)",
        measure: "",
        value: "109 ms, peak RSS 99 MB",
        spread: "",
        target: "",
      },
      {
        scenario: "patch: git repository, 20000 files, 10 changed, 5 runs",
        measure: "snapshot",
        value: "163 ms",
        spread: "341, 306, 160",
        target: "",
      },
      {
        scenario: "patch: git repository, 20000 files, 10 changed, 5 runs",
        measure: "diff",
        value: "80 ms",
        spread: "83, 80, 82; patch 3935 chars",
        target: "",
      },
    ]);
  });

  test("median, range and target of measured values, rendered as a Markdown table", () => {
    expect(spread([9, 1, 5, 7])).toEqual({ median: 7, min: 1, max: 9, runs: 4 });
    const rows = [
      rowOf("cold start", "--version wall ms", [52, 47, 59], { below: 150 }),
      rowOf("big output", "peak RSS MB", [147, 145, 148], { below: 120 }),
    ];
    expect(markdownTable(rows)).toMatchInlineSnapshot(`
      "| scenario   | measure           | median | spread           | target       |
      | ---------- | ----------------- | ------ | ---------------- | ------------ |
      | cold start | --version wall ms | 52     | 47–59 (3 runs)   | < 150 met    |
      | big output | peak RSS MB       | 147    | 145–148 (3 runs) | < 120 MISSED |"
    `);
  });
});
