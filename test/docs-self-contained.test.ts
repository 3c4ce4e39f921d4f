import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { usageJson } from "../src/output/usage-json.ts";
import { BUILT_DIST } from "./helpers/built.ts";
import { ROOT } from "./helpers/cli.ts";
import { makeRecord } from "./output-helpers.ts";

/**
 * Issue 16: what a user reads points nowhere outside the repository. The README, the docs, the
 * examples, action.yml and every message the built CLI and action can print (the bundles carry no
 * comments) name no design document, style guide or section of one.
 */
const OUTSIDE = /\bDESIGN\b|\bSTYLE(?:\.md)?\b|§/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (name === "node_modules" || name === ".agent-run") return [];
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

test("README, ARCHITECTURE, CONTRIBUTING, docs, examples and action.yml refer to nothing outside the repository", () => {
  const files = [
    path.join(ROOT, "README.md"),
    path.join(ROOT, "action.yml"),
    ...["ARCHITECTURE.md", "CONTRIBUTING.md"].map((name) => path.join(ROOT, name)).filter(existsSync),
    ...filesUnder(path.join(ROOT, "docs")),
    ...filesUnder(path.join(ROOT, "examples")),
  ];
  const hits = files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) =>
        OUTSIDE.test(line) ? [`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [],
      ),
  );
  expect(hits).toEqual([]);
});

test("no message of the built CLI or action does", () => {
  const hits = filesUnder(BUILT_DIST)
    .filter((file) => file.endsWith(".js"))
    .flatMap((file) => {
      const text = readFileSync(file, "utf8");
      const match = OUTSIDE.exec(text);
      return match
        ? [
            `${path.relative(BUILT_DIST, file)}: …${text.slice(Math.max(0, match.index - 60), match.index + 40)}…`,
          ]
        : [];
    });
  expect(hits).toEqual([]);
});

test("docs/outputs.md names every file and folder the outputs dir can hold, and each usage.json field", () => {
  const doc = readFileSync(path.join(ROOT, "docs", "outputs.md"), "utf8");
  for (const name of [
    "events.jsonl",
    "patch.diff",
    "usage.json",
    "summary.md",
    "tool-output/",
    "review.json",
    "pr.diff",
    ".gitignore",
  ])
    expect(doc).toContain(`| \`${name}\``);
  // The fields usage.json really has, so a field added without its line fails here.
  const usage = usageJson(
    makeRecord({ toolCalls: { bash: { calls: 1, errors: 0, blocked: 0, durationMs: 5 } } }),
    [],
  );
  const fields = (value: object, prefix: string): string[] =>
    Object.entries(value).flatMap(([key, inner]) => {
      const name = prefix === "tool_calls.by_tool." ? `${prefix}<name>` : `${prefix}${key}`;
      return inner !== null && typeof inner === "object" && prefix !== "tool_calls.by_tool."
        ? fields(inner, `${name}.`)
        : [name];
    });
  const documented = fields(usage, "");
  expect(documented).toContain("tool_calls.by_tool.<name>");
  for (const field of documented) expect(doc).toContain(`| \`${field}\``);
  for (const code of ["0", "1", "2", "3", "4", "130", "143"])
    expect(doc).toMatch(new RegExp(`^\\| ${code} +\\|`, "m"));
});
